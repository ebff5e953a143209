import Foundation
import Logging
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdTransport
import PickerdWire

/// Builds what the person approved from pickerd's own store: the kept items (settings applied once
/// more), each with its media as sealed copies, redacted unless the person kept a place, its local
/// time's offset only with such a place (``ReleasedLocalTime``), and the title. Only item ids come
/// from the agent; nothing it sent is passed on.
struct ReleaseBuilder: Sendable {
    let store: Store
    let builder: SuggestionBuilder
    let media: SealedMedia
    let logger: Logger

    /// An approved suggestion, ready to send.
    struct Approved {
        /// The suggestion the app receives.
        let suggestion: Suggestion
        /// Its title (the person's, or made again from what was kept).
        let title: String
        /// The items released, in the suggestion's order.
        let items: [LibraryItem]
        /// The sealed copies of their media, in the order the items' media name them.
        let descriptors: [OwnedFileDescriptor]
    }

    /// Builds the approved suggestion.
    /// - Parameters:
    ///   - shown: the suggestion as the agent was shown it.
    ///   - approval: the person's decision: the kept item ids and the title.
    ///   - session: the session's handle, for the log.
    /// - Returns: the suggestion, its items and media.
    /// - Throws: ``BrokerError`` when none of the kept items can be released, ``NothingReleasable``
    ///   when every one was left out (its file changed, or it cannot be redacted), ``StoreError``.
    func build(shown: ListedSuggestion, approval: Approval, session: String) throws -> Approved {
        let enabled = try store.enabledCategories()
        let kept = Set(approval.keptItemIds.compactMap(UUID.init(uuidString:)))
        // From pickerd's own store, in the suggestion's order, settings applied once more.
        // The person's names for places go only into the place items kept (``PersonsNames``); an
        // unedited title is made again from these.
        let candidates = try PersonsNames(store: store).applied(to: store.items(shown.items.map(\.id).filter(kept.contains)))
            .filter { enabled.contains($0.kind.category) && !$0.excludedFromSuggestions }
        guard !candidates.isEmpty else { throw BrokerError("none of the kept items can be released") }
        // Location data leaves only with a place the person kept: a photo's GPS, a workout's route.
        let placeApproved = candidates.contains { $0.kind == .location || $0.kind == .locationGroup }
        var descriptors: [OwnedFileDescriptor] = []
        var wireItems: [Item] = []
        var leftOut: [String] = []
        for item in candidates {
            let first = descriptors.count
            let copies: [OwnedFileDescriptor]
            do {
                copies = try item.media.map { placeApproved ? try media.sealedCopy($0) : try media.redactedCopy($0) }
            } catch let unavailable as MediaUnavailable {
                // The person's file changed or went since it was indexed: not what they saw, so it stays.
                leftOut.append(unavailable.reason)
                continue
            } catch let refused as ExifRedactor.NotRedactable {
                // Without its place the file may leave only with no location in it: a type that
                // cannot be redacted stays (redaction fails closed).
                leftOut.append("\(item.media.first?.filename ?? "a file"): \(refused)")
                continue
            } catch let unreadable as ExifRedactor.Unreadable {
                leftOut.append("\(item.media.first?.filename ?? "a file"): its metadata cannot be read to remove its place (\(unreadable))")
                continue
            }
            descriptors += copies
            let asset = item.asset.mappingMedia { media in
                var m = media
                m.fdIndex = UInt32(first) + media.fdIndex
                m.hasFd = true
                return m
            }
            wireItems.append(Item(id: item.id.uuidString, asset: placeApproved ? asset : RouteRedactor.strippingRoutes(asset)))
        }
        if !leftOut.isEmpty {
            logger.notice("left out of a release", metadata: ["session": "\(session)", "why": "\(leftOut)"])
        }
        let releasedIDs = Set(wireItems.map(\.id))
        let items = candidates.filter { releasedIDs.contains($0.id.uuidString) }
        guard !items.isEmpty else { throw NothingReleasable() }
        // Each item's local time, only with a kept place (an offset tells a region): none otherwise.
        let offsets = Dictionary(uniqueKeysWithValues: zip(items.map(\.id.uuidString), ReleasedLocalTime.offsets(of: items)))
        for index in wireItems.indices { wireItems[index].localUtcOffsetS = offsets[wireItems[index].id].flatMap { $0 }.map(Int64.init) }
        // An unedited title is made again from what was kept: it must not name a person or a
        // place the person left out ("Evening with Maya at Via Carota" without Maya), nor an
        // event none of the kept items lies within.
        let title = approval.titleEdited ? approval.title : builder.title(of: shown, kept: items)
        let suggestion = Suggestion(title: title,
                                    date: PickerdWire.DateInterval(startUnixMs: items.map(\.startMs).min()!, endUnixMs: items.map(\.endMs).max()!),
                                    items: wireItems)
        return Approved(suggestion: suggestion, title: title, items: items, descriptors: descriptors)
    }
}
