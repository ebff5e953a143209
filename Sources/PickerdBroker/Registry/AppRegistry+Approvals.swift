import Foundation
import Logging
import PickerdTransport
import PickerdStore
import PickerdWire

/// The person's word on apps: who is asked before presenting, allowing and revoking.
extension Broker {
    /// Whether pickerd allows developers' builds and Flatpaks without asking (`--developer-mode`, or
    /// the file `<config-dir>/developer-mode`: a setting a same-uid process could set as it could
    /// edit anything of the person's, but that nothing reaching pickerd's sockets can).
    var developerMode: Bool {
        configuration.developerMode || FileManager.default.fileExists(atPath: configuration.paths.configDirectory + "/developer-mode")
    }

    /// What the person's allowance of `app` is given for: a developer's executable and entitlements
    /// paths, a Flatpak's app id; registering anything else is asked about again.
    static func approvalKey(_ app: AppManifest) -> String {
        app.flatpakAppId.isEmpty ? "developer\n\(app.executablePath)\n\(app.entitlementsPath)" : "flatpak\n\(app.flatpakAppId)"
    }

    /// How the picker describes where an app comes from, when it asks the person.
    static func origin(_ app: AppManifest) -> String {
        switch app.kind {
        case .system: return "installed by the system (\(app.manifestPath)), and revoked by you"
        case .flatpak: return "the Flatpak app \(app.flatpakAppId)"
        default:
            let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
            let folder = (app.executablePath as NSString).deletingLastPathComponent
            let shown = !home.isEmpty && folder.hasPrefix(home + "/") ? "~" + folder.dropFirst(home.count) : folder
            return "a build at \(shown), not installed by the system"
        }
    }

    /// The app's state now: allowed, pending, revoked, or refused for a problem.
    func state(of app: AppManifest, _ records: [String: AppRecord]) -> AppState {
        if !app.problem.isEmpty { return .refused }
        let record = records[app.bundleId]
        if app.kind == .system { return record?.isRevoked == true ? .revoked : .allowed }
        if developerMode || record?.allows(Self.approvalKey(app)) == true { return .allowed }
        return record?.isRevoked == true ? .revoked : .pending
    }

    /// Every app with its state, approval and last presentation filled in, for `pickerctl apps`.
    func listedApps() throws -> [AppManifest] {
        let records = try store.appRecords()
        return registry.apps().map { app in
            var app = app
            app.state = state(of: app, records)
            let record = records[app.bundleId]
            if app.kind != .system, let record, record.allows(Self.approvalKey(app)) { app.approvedMs = record.allowedMs ?? 0 }
            app.lastPresentedMs = record?.lastPresentedMs ?? 0
            return app
        }
    }

    /// The question the picker asks before `app` presents, or `nil` when it is allowed.
    func approvalRequest(for app: AppManifest) throws -> AppApprovalRequest? {
        switch state(of: app, try store.appRecords()) {
        case .allowed: return nil
        default: return AppApprovalRequest(origin: Self.origin(app), kind: app.kind)
        }
    }

    /// Records that the person allowed `app` in the trusted picker.
    /// - Parameters:
    ///   - app: the app.
    ///   - store: where allowances are kept.
    ///   - logger: where the allowance is logged.
    /// - Throws: ``StoreError``.
    static func allowApp(_ app: AppManifest, in store: Store, logger: Logger) throws {
        try store.allowApp(app.bundleId, key: Self.approvalKey(app), timeMs: Date().unixMs)
        logger.info("app allowed by the person", metadata: ["bundle": "\(app.bundleId)", "kind": "\(app.kind)"])
    }
}
