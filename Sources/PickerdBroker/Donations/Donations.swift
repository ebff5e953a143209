import Foundation
import Glibc
import Logging
import PickerdMoments
import PickerdStore
import PickerdTransport
import PickerdWire
import SystemPackage

/// Donations: apps give pickerd media and State of Mind samples (Apple's Generic Media and State of
/// Mind), which then appear in suggestions like the person's own items. A donating app gets an
/// acknowledgement and nothing else; what it donated reaches another app only through the person's
/// choice in the picker.
extension Broker {
    /// The most items one app may have donated (a flood fills no disk).
    static let maximumDonationsPerApp = 50_000
    /// The largest image an app may donate (app icon, artwork, a mood's icon).
    static let maximumDonatedImageBytes = 8 << 20
    /// The longest text field of a donation, in bytes.
    static let maximumDonatedText = 1_024
    /// The longest external identifier, in bytes.
    static let maximumExternalID = 256

    /// The app calling, as the kernel names it, if it may use `key`: registered, its executable and
    /// entitlements as its manifest says, and the entitlement `key` true. Presenting and donating
    /// both ask this.
    /// - Parameters:
    ///   - identity: the peer, from the kernel.
    ///   - key: the entitlement.
    ///   - logger: for the refusal.
    /// - Returns: the app, or the `notEntitled` error to send.
    func entitledApp(_ identity: PeerIdentity, key: String, logger: Logger) -> Result<AppManifest, Refused> {
        // Who is calling, from the kernel: a Flatpak by its sandbox's app id, anyone else by the
        // executable file itself (device and inode), never by a path or what the caller says.
        let flatpak = identity.flatpakAppID
        guard let app = registry.app(for: identity) else {
            let message = flatpak.map {
                "the Flatpak app \($0) is not known to pickerd (a system manifest naming it, or pickerctl apps register --flatpak-app-id \($0))"
            } ?? (identity.sandboxed
                  ? "\(identity.executablePath ?? "this program") runs in a sandbox that is not a Flatpak's: pickerd knows a sandboxed app "
                    + "only by its Flatpak app id (/.flatpak-info), never by its executable, which a sandbox can run under any program's control"
                  : "\(identity.executablePath ?? "this program") is not a registered app (pickerctl apps register)")
            logger.notice("not entitled: unregistered", metadata: ["executable": "\(identity.executablePath ?? "?")", "flatpak": "\(flatpak ?? "")"])
            return .failure(Refused(ErrorInfo(code: .notEntitled, message: message)))
        }
        if !app.problem.isEmpty {
            logger.notice("not entitled", metadata: ["reason": "\(app.problem)"])
            return .failure(Refused(ErrorInfo(code: .notEntitled, message: app.problem)))
        }
        if let refusal = EntitlementGate.refusal(for: app, executable: identity.executableVersion(),
                                                 executableBytes: identity.executableBytes, key: key) {
            logger.notice("not entitled", metadata: ["reason": "\(refusal)", "entitlement": "\(key)"])
            return .failure(Refused(ErrorInfo(code: .notEntitled, message: refusal)))
        }
        return .success(app)
    }

    /// `DonationRequest`: checks the app, the asset and its files, copies the files into the store,
    /// writes the item (replacing the app's earlier donation with the same identifier) and folds it
    /// into the moments.
    func donate(_ request: DonationRequest, descriptors: [OwnedFileDescriptor], identity: PeerIdentity, logger: Logger) -> Envelope.Body {
        defer { for descriptor in descriptors { try? descriptor.close() } }
        let app: AppManifest
        switch entitledApp(identity, key: EntitlementGate.donationsKey, logger: logger) {
        case .success(let entitled): app = entitled
        case .failure(let refused): return .error(refused.info)
        }
        do {
            // Donating takes the person's or the system's word as presenting does (invariant 15): a
            // developer's build the person has not allowed in the picker may not fill suggestions.
            guard state(of: app, try store.appRecords()) == .allowed else {
                return .error(ErrorInfo(code: .notEntitled, message: "\(app.bundleId) is not allowed yet: the person allows it in the picker the first time it presents"))
            }
            let externalID = request.externalId
            guard !externalID.isEmpty, externalID.utf8.count <= Self.maximumExternalID, !externalID.contains("\0") else {
                return .error(ErrorInfo(code: .invalidArgument, message: "external_id must be 1 to \(Self.maximumExternalID) bytes"))
            }
            let id = SuggestionBuilder.stableID("donation|\(app.bundleId)|\(externalID)")
            let previous = try store.items([id]).first
            if previous == nil, try store.donationCount(bundleID: app.bundleId) >= Self.maximumDonationsPerApp {
                return .error(ErrorInfo(code: .failedPrecondition,
                                        message: "\(app.bundleId) has donated \(Self.maximumDonationsPerApp) items, the most pickerd keeps for one app: withdraw some first"))
            }
            let now = configuration.clock.now().unixMs
            let item: LibraryItem
            switch try DonatedItem.make(request, id: id, bundleID: app.bundleId, nowMs: now, descriptors: descriptors, store: store) {
            case .success(let made): item = made
            case .failure(let refused): return .error(refused.info)
            }
            var changes = SourceChanges()
            changes.items = [item]
            let touched = try store.apply(changes)
            try MomentEngine(store: store, builder: builder).refresh(touching: touched)
            let kept = Set(item.media.map(\.relativePath))
            store.removeUnreferencedMedia((previous?.media ?? []).map(\.relativePath).filter { !kept.contains($0) })
            logger.info("donation", metadata: ["bundle": "\(app.bundleId)", "kind": "\(item.kind)", "excluded": "\(item.excludedFromSuggestions)",
                                               "replaced": "\(previous != nil)"])
            return .donationReply(DonationReply(externalId: externalID))
        } catch let error as StoreError {
            logger.error("donation not stored", metadata: ["error": "\(error)"])
            return .error(ErrorInfo(code: .storage, message: error.message))
        } catch {
            return .error(ErrorInfo(code: .internal, message: "\(error)"))
        }
    }

    /// `WithdrawDonationsRequest`: removes the calling app's donations (those named, or all), their
    /// files, and the moments they were in are built again. Only the caller's own donations are ever
    /// found: another app's identifiers name nothing.
    func withdrawDonations(_ request: WithdrawDonationsRequest, identity: PeerIdentity, logger: Logger) -> Envelope.Body {
        let app: AppManifest
        // Withdrawing needs no more than being the app (not the entitlement: an app whose
        // entitlement was taken away may still take back what it gave).
        switch entitledApp(identity, key: EntitlementGate.donationsKey, logger: logger) {
        case .success(let entitled): app = entitled
        case .failure(let refused):
            guard let known = registry.app(for: identity) else { return .error(refused.info) }
            app = known
        }
        guard request.all || !request.externalIds.isEmpty else {
            return .error(ErrorInfo(code: .invalidArgument, message: "name the donations to withdraw, or ask for all"))
        }
        do {
            let items = request.all ? try store.donations(bundleID: app.bundleId)
                                    : try store.donations(bundleID: app.bundleId, externalIDs: request.externalIds)
            let removed = try removeDonations(items)
            logger.info("donations withdrawn", metadata: ["bundle": "\(app.bundleId)", "count": "\(removed)"])
            return .withdrawDonationsReply(WithdrawDonationsReply(withdrawn: UInt64(removed)))
        } catch let error as StoreError {
            return .error(ErrorInfo(code: .storage, message: error.message))
        } catch {
            return .error(ErrorInfo(code: .internal, message: "\(error)"))
        }
    }

    /// Removes donated items, their files, and builds their moments again.
    /// - Parameter items: donated items.
    /// - Returns: how many were removed.
    func removeDonations(_ items: [LibraryItem]) throws -> Int {
        let donated = items.filter { $0.donatingApp != nil }
        guard !donated.isEmpty else { return 0 }
        var changes = SourceChanges()
        changes.removedItems = donated.map(\.id)
        let touched = try store.apply(changes)
        try MomentEngine(store: store, builder: builder).refresh(touching: touched)
        store.removeUnreferencedMedia(donated.flatMap(\.media).map(\.relativePath))
        truncateLog()
        return donated.count
    }
}

/// A request refused, with the typed error the caller is sent.
struct Refused: Error {
    /// The error.
    var info: ErrorInfo
    init(_ info: ErrorInfo) { self.info = info }
}

/// A donation made into a library item: fields checked, files copied.
enum DonatedItem {
    /// The item a donation becomes, or the error the app is told.
    static func make(_ request: DonationRequest, id: UUID, bundleID: String, nowMs: Int64, descriptors: [OwnedFileDescriptor],
                     store: Store) throws -> Result<LibraryItem, Refused> {
        func invalid(_ message: String) -> Result<LibraryItem, Refused> { .failure(Refused(ErrorInfo(code: .invalidArgument, message: message))) }
        var asset: Item.Asset
        let date: Timestamp?
        switch request.asset {
        case .genericMedia(var g)?:
            for (name, text) in [("title", g.title), ("artist", g.artist), ("album", g.album)] where text.utf8.count > Broker.maximumDonatedText {
                return invalid("\(name) is longer than \(Broker.maximumDonatedText) bytes")
            }
            guard !g.title.isEmpty || !g.album.isEmpty else { return invalid("generic media needs a title or an album") }
            g.date = g.date ?? Timestamp(unixMs: nowMs)
            date = g.date
            asset = .genericMedia(g)
        case .stateOfMind(var s)?:
            guard var state = s.state else { return invalid("a State of Mind donation needs its sample (state)") }
            guard state.kind == .momentaryEmotion || state.kind == .dailyMood else { return invalid("kind is momentary emotion or daily mood") }
            guard state.valence.isFinite, (-1...1).contains(state.valence) else { return invalid("valence is from -1 to 1") }
            guard (0...7).contains(state.valenceClassification.rawValue) else { return invalid("valence_classification is 1 to 7") }
            guard state.labels.count <= 38, state.labels.allSatisfy({ (1...38).contains($0.rawValue) }) else { return invalid("labels are HealthKit's 1…38") }
            guard state.associations.count <= 18, state.associations.allSatisfy({ (1...18).contains($0.rawValue) }) else {
                return invalid("associations are HealthKit's 1…18")
            }
            if state.valenceClassification == .unspecified { state.valenceClassification = StateOfMindStyle.classification(valence: state.valence) }
            state.date = state.date ?? Timestamp(unixMs: nowMs)
            date = state.date
            s.state = state
            let backgrounds = StateOfMindStyle.backgrounds(valence: state.valence)
            s.lightBackground = s.lightBackground ?? backgrounds.light
            s.darkBackground = s.darkBackground ?? backgrounds.dark
            asset = .stateOfMind(s)
        case nil:
            return invalid("a donation is generic media or a State of Mind sample")
        }
        let startMs = date?.unixMs ?? nowMs
        guard startMs <= nowMs + 86_400_000 else { return invalid("the date is more than a day in the future") }
        guard startMs >= 0 else { return invalid("the date is before 1970") }

        // The files: each named descriptor read whole (bounded), checked to be a PNG or JPEG, and
        // copied under a fresh name (a replaced donation's files go once nothing refers to them).
        var media: [StoredMedia] = []
        var failure: ErrorInfo?
        let batch = UUID().uuidString.prefix(8).lowercased()
        asset = asset.mappingMedia { reference in
            guard failure == nil else { return reference }
            // A reference without a descriptor names nothing the app may give (never one of pickerd's
            // files): marked here, left out below.
            guard reference.hasFd else { return Media(hasFd: true, fdIndex: .max) }
            guard descriptors.indices.contains(Int(reference.fdIndex)), let fd = descriptors[Int(reference.fdIndex)].descriptor else {
                failure = ErrorInfo(code: .invalidArgument, message: "media names descriptor \(reference.fdIndex), which was not sent")
                return reference
            }
            switch DonatedImage.read(fd.rawValue, limit: Broker.maximumDonatedImageBytes) {
            case .failure(let refusal):
                failure = ErrorInfo(code: .invalidArgument, message: refusal.description)
                return reference
            case .success(let image):
                let slot = media.count
                let path = "donations/\(id.uuidString.lowercased())-\(batch)-\(slot).\(image.fileExtension)"
                do throws(StoreError) {
                    try store.writeMedia(image.bytes, to: path)
                } catch {
                    failure = ErrorInfo(code: .storage, message: error.message)
                    return reference
                }
                let stored = StoredMedia(relativePath: path, contentType: image.contentType, filename: "\(slot == 0 ? "image" : "image-\(slot)").\(image.fileExtension)",
                                         byteCount: UInt64(image.bytes.count), pixelWidth: image.width, pixelHeight: image.height)
                media.append(stored)
                return stored.media(slot: slot)
            }
        }
        if let failure {
            store.removeUnreferencedMedia(media.map(\.relativePath))
            return .failure(Refused(failure))
        }
        asset = Self.droppingUnsent(asset)
        return .success(LibraryItem(id: id, asset: asset, media: media, startMs: startMs, excludedFromSuggestions: request.excludeFromSuggestions,
                                    source: LibraryItem.donationSource(bundleID), externalID: request.externalId))
    }

    /// The asset without the references left unresolved (every copied file's reference has `hasFd`
    /// false, as the store keeps them; what remains with `hasFd` named no descriptor).
    static func droppingUnsent(_ asset: Item.Asset) -> Item.Asset {
        switch asset {
        case .genericMedia(var g):
            if g.appIcon?.hasFd == true { g.appIcon = nil }
            if g.artwork?.hasFd == true { g.artwork = nil }
            return .genericMedia(g)
        case .stateOfMind(var s):
            if s.icon?.hasFd == true { s.icon = nil }
            return .stateOfMind(s)
        default:
            return asset
        }
    }
}
