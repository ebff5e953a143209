import PickerdWire

/// What the trusted picker asks the person before an app that is not yet allowed may present:
/// "<App> — <origin> — wants to show you journaling suggestions. Allow / Don't Allow".
///
/// `Broker.handleClient` passes one to ``SessionManager/present(client:requestID:app:request:terminal:approval:)``
/// for an app the registry knows but the person has not allowed (a developer's registration, a
/// Flatpak app id without a system manifest); `nil` means the app may present. The picker asks
/// before anything else, the consent sheet included. An Allow is remembered (`Broker.allowApp(_:in:logger:)`)
/// until revoked; a Don't Allow is not remembered, so the next presentation asks again.
struct AppApprovalRequest: Sendable {
    /// Where the app comes from, in words the person can judge: "a build at ~/src/journal-demo, not
    /// installed by the system".
    var origin: String
    /// How pickerd knows the app (developer build, Flatpak, …).
    var kind: AppKind
}
