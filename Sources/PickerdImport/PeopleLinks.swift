import Foundation
import PickerdMoments
public import PickerdStore
import PickerdWire

/// Makes the Contact items the person's data gives: a contact appears in the library only where the
/// data says the person spent time with them.
///
/// - An event's attendee who matches a contact gives a Contact item at the event's start (one per
///   contact per occurrence; an attendee who declined gives none).
/// - A photo whose metadata names a contact (PickerdReaders' `XMPPeople`) gives a Contact item at the photo's
///   time: one per contact per hour of photos, at the first of them (a party's fifty photos of
///   Maya are one Contact item, not fifty).
///
/// Matching: an attendee by email address (case aside), else by exact name; a name in a photo by
/// exact name. A contact's names are its `FN` and "Given Family" from its `N`, with runs of
/// whitespace made one space; a name two contacts share matches neither.
///
/// The items are a function of the contacts, the events and the photos: ids are deterministic
/// (the contact's key with the event occurrence, or with the hour), so making them again (a
/// re-import, a rescan) changes only what changed and never doubles one. Each item is linked to
/// the photos and events behind it; when the last of them goes, the store removes the item.
public struct PeopleLinks: Sendable {
    /// The store.
    public let store: Store
    /// The span one photo Contact item stands for.
    static let hourMs: Int64 = 3_600_000
    /// The longest window made at once (a first import over years goes a year at a time).
    static let windowMs: Int64 = 366 * 86_400_000

    /// Creates a linker.
    public init(store: Store) { self.store = store }

    /// Makes again the Contact items of the times `ranges` cover (each widened to whole hours).
    /// - Parameter ranges: times whose photos or events changed, ms since 1970.
    /// - Returns: when the items written and removed happen (for the engine), and how many were written.
    /// - Throws: ``StoreError``.
    public func relink(_ ranges: [ClosedRange<Int64>]) throws(StoreError) -> (touched: [ClosedRange<Int64>], written: Int) {
        guard !ranges.isEmpty else { return ([], 0) }
        let directory = Directory(try store.contacts())
        var touched: [ClosedRange<Int64>] = []
        var written = 0
        for window in Self.windows(ranges) {
            let done = try relink(window, directory)
            touched += done.touched
            written += done.written
        }
        return (touched, written)
    }

    /// Makes again every Contact item (after contacts changed: a new name or address may match
    /// anyone, any time), a year at a time.
    /// - Throws: ``StoreError``.
    public func relinkAll() throws(StoreError) -> (touched: [ClosedRange<Int64>], written: Int) {
        let spans = [try store.eventRange(), try store.namedInPhotosRange()].compactMap { $0 }
        guard let first = spans.map(\.lowerBound).min(), let last = spans.map(\.upperBound).max() else { return ([], 0) }
        return try relink([first...last])
    }

    /// Windows of whole hours that cover `ranges`, merged where they touch or lie within a day, each
    /// at most ``windowMs`` long.
    static func windows(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        func floorHour(_ t: Int64) -> Int64 { t >= 0 ? t / hourMs * hourMs : (t - hourMs + 1) / hourMs * hourMs }
        let widened = ranges.map { floorHour($0.lowerBound)...(floorHour($0.upperBound) + hourMs - 1) }
        // Those a day apart or less are one.
        return Store.joined(widened, lessThanApart: 86_400_001).flatMap { range -> [ClosedRange<Int64>] in
            // Split on whole hours, so an hour's photos are never in two windows.
            var pieces: [ClosedRange<Int64>] = []
            var start = range.lowerBound
            while start <= range.upperBound {
                let end = min(range.upperBound, start + windowMs - 1)
                pieces.append(start...end)
                start = end + 1
            }
            return pieces
        }
    }

    private func relink(_ window: ClosedRange<Int64>, _ directory: Directory) throws(StoreError) -> (touched: [ClosedRange<Int64>], written: Int) {
        var wanted: [UUID: PersonLink] = [:]
        if !directory.isEmpty {
            for event in try store.events(startingFrom: window.lowerBound, to: window.upperBound) {
                for attendee in event.attendees {
                    guard let contact = directory.match(attendee) else { continue }
                    let id = SuggestionBuilder.stableID("people|event|\(event.id)|\(contact.key)")
                    if wanted[id] == nil {
                        wanted[id] = PersonLink(item: Self.item(id, contact, at: event.startMs, offset: nil), eventIDs: [event.id])
                    }
                }
            }
            // In time order: an hour's first photo of someone dates their item.
            for photo in try store.namedInPhotos(startingFrom: window.lowerBound, to: window.upperBound) {
                for name in photo.names {
                    guard let contact = directory.match(name: name) else { continue }
                    let hour = photo.startMs >= 0 ? photo.startMs / Self.hourMs : (photo.startMs - Self.hourMs + 1) / Self.hourMs
                    let id = SuggestionBuilder.stableID("people|photos|\(contact.key)|\(hour)")
                    if wanted[id] == nil {
                        wanted[id] = PersonLink(item: Self.item(id, contact, at: photo.startMs, offset: photo.utcOffsetSeconds))
                    }
                    if !(wanted[id]!.photoItemIDs.contains(photo.itemID)) { wanted[id]!.photoItemIDs.append(photo.itemID) }
                }
            }
        }
        let existing = try store.personItemIDs(startingFrom: window.lowerBound, to: window.upperBound)
        let removed = existing.filter { wanted[$0] == nil }
        // What is already there as it should be (item and links) is left alone: no rebuild for it.
        let current = Dictionary(try store.items(Array(wanted.keys)).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let currentLinks = try store.personLinks(of: Array(wanted.keys.filter { current[$0] != nil }))
        let changed = wanted.values.filter { link in
            guard current[link.item.id] == link.item, let links = currentLinks[link.item.id] else { return true }
            return links.photos != Set(link.photoItemIDs) || links.events != Set(link.eventIDs)
        }.sorted { $0.item.id.orderKey < $1.item.id.orderKey }
        let touched = try store.applyPersonLinks(changed, removing: removed)
        return (touched, changed.count)
    }

    /// A Contact item: the contact's name and photo, at `timeMs`.
    static func item(_ id: UUID, _ contact: StoredContact, at timeMs: Int64, offset: Int32?) -> LibraryItem {
        LibraryItem(id: id, asset: .contact(Contact(name: contact.name, photo: contact.photo?.media(slot: 0))),
                    media: contact.photo.map { [$0] } ?? [], startMs: timeMs, endMs: timeMs, source: Store.peopleSource,
                    externalID: contact.key, utcOffsetSeconds: offset)
    }

    /// The contacts, indexed for matching.
    struct Directory {
        private var byEmail: [String: StoredContact] = [:]
        private var byName: [String: StoredContact] = [:]

        /// Whether there is no contact to match.
        var isEmpty: Bool { byEmail.isEmpty && byName.isEmpty }

        init(_ contacts: [StoredContact]) {
            var ambiguous = Set<String>()
            for contact in contacts.sorted(by: { $0.key < $1.key }) {
                for email in contact.emails {
                    let key = email.trimmingCharacters(in: .whitespaces).lowercased()
                    if !key.isEmpty, byEmail[key] == nil { byEmail[key] = contact }
                }
                for name in Set(([contact.name] + contact.otherNames).compactMap(ImportedContact.normalized)) {
                    if let other = byName[name], other.key != contact.key { ambiguous.insert(name) } else { byName[name] = contact }
                }
            }
            for name in ambiguous { byName[name] = nil }
        }

        /// The contact an attendee is: by email address, else by exact name.
        func match(_ attendee: EventAttendee) -> StoredContact? {
            let email = attendee.email.trimmingCharacters(in: .whitespaces).lowercased()
            if !email.isEmpty, let contact = byEmail[email] { return contact }
            return attendee.name.isEmpty ? nil : match(name: attendee.name)
        }

        /// The contact called exactly `name` (whitespace aside).
        func match(name: String) -> StoredContact? {
            ImportedContact.normalized(name).flatMap { byName[$0] }
        }
    }
}
