import Foundation
import Logging
import PickerdStore
import PickerdWire

/// `pickerctl donations list | remove`: the person sees what apps donated and removes any of it.
extension ControlHandler {
    func donationsList(_ request: DonationsListRequest) throws -> Envelope.Body {
        let items = try broker.store.donations(bundleID: request.bundleId.isEmpty ? nil : request.bundleId, limit: Int(request.limit))
        let names = Dictionary(broker.registry.apps().map { ($0.bundleId, $0.displayName) }, uniquingKeysWith: { a, _ in a })
        return .donationsListReply(DonationsListReply(donations: items.compactMap { item in
            guard let bundleID = item.donatingApp else { return nil }
            return DonationEntry(itemId: item.id.uuidString, bundleId: bundleID, appName: names[bundleID] ?? "", externalId: item.externalID,
                                 kind: item.kind.rawValue, summary: item.asset.summary, dateMs: item.startMs,
                                 excluded: item.excludedFromSuggestions)
        }))
    }

    func donationsRemove(_ request: DonationsRemoveRequest) throws -> Envelope.Body {
        let items: [LibraryItem]
        if request.itemIds.isEmpty {
            guard !request.bundleId.isEmpty else {
                return .error(ErrorInfo(code: .invalidArgument, message: "name donations (their ids from pickerctl donations list) or an app"))
            }
            items = try broker.store.donations(bundleID: request.bundleId)
        } else {
            var ids: [UUID] = []
            for text in request.itemIds {
                guard let id = UUID(uuidString: text) else { return .error(ErrorInfo(code: .invalidArgument, message: "\(text) is not a donation id")) }
                ids.append(id)
            }
            let found = try broker.store.items(ids).filter { $0.donatingApp != nil && (request.bundleId.isEmpty || $0.donatingApp == request.bundleId) }
            if found.count < ids.count {
                let missing = Set(ids).subtracting(found.map(\.id)).map(\.uuidString).sorted()
                return .error(ErrorInfo(code: .notFound, message: "no donation \(missing.joined(separator: ", ")) (pickerctl donations list)"))
            }
            items = found
        }
        let removed = try broker.removeDonations(items)
        logger.info("donations removed by the person", metadata: ["count": "\(removed)", "bundle": "\(request.bundleId)"])
        return .donationsRemoveReply(DonationsRemoveReply(removed: UInt64(removed)))
    }
}
