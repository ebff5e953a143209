public import Foundation
import GRDB

/// One of the person's contacts (from a vCard), as the store keeps it. Not a library item: a
/// Contact item is made from it only where the data says the person spent time with them.
public struct StoredContact: Sendable, Hashable {
    /// What makes it the same contact on a second import: `uid:` and the card's UID, or `name:` and
    /// its name when the card has no UID.
    public var key: String
    /// The card's UID, if it has one.
    public var uid: String?
    /// The name to show (`FN`, or made from `N`).
    public var name: String
    /// Other exact names it goes by ("Given Family" from `N`, when that differs from `name`).
    public var otherNames: [String]
    /// Its email addresses, as written.
    public var emails: [String]
    /// Its photo, a file in the store's media directory.
    public var photo: StoredMedia?

    /// Creates a contact.
    /// - Parameters:
    ///   - key: the identity a second import finds it by.
    ///   - uid: the card's UID.
    ///   - name: the name to show.
    ///   - otherNames: other exact names.
    ///   - emails: email addresses.
    ///   - photo: its photo in the store's media directory.
    public init(key: String, uid: String? = nil, name: String, otherNames: [String] = [], emails: [String] = [], photo: StoredMedia? = nil) {
        self.key = key
        self.uid = uid
        self.name = name
        self.otherNames = otherNames
        self.emails = emails
        self.photo = photo
    }
}

/// Someone a calendar event names as an attendee.
public struct EventAttendee: Sendable, Hashable {
    /// The attendee's name (`CN`), empty when absent.
    public var name: String
    /// The attendee's email address (from a `mailto:` value), empty when absent.
    public var email: String

    /// Creates an attendee.
    public init(name: String, email: String) {
        self.name = name
        self.email = email
    }
}

/// One occurrence of a calendar event, as the store keeps it (a recurring event has one per
/// occurrence within the import's horizon).
public struct CalendarEvent: Sendable, Hashable {
    /// The occurrence's deterministic id (the event's UID and the occurrence's start).
    public var id: String
    /// The event's UID (a re-import replaces every occurrence of the UIDs it holds).
    public var uid: String
    /// Its SUMMARY.
    public var summary: String
    /// When it starts, ms since 1970.
    public var startMs: Int64
    /// When it ends, ms since 1970 (an all-day event ends at the next day's midnight).
    public var endMs: Int64
    /// Whether it is an all-day (DATE) event.
    public var allDay: Bool
    /// Its TZID, `UTC`, or empty for a floating time (the person's zone).
    public var timeZone: String
    /// Its LOCATION. Never shown in a title, never sent to an app.
    public var location: String
    /// Who it names as attendees (declined ones left out). Never sent to an app.
    public var attendees: [EventAttendee]

    /// Creates an event occurrence.
    public init(id: String, uid: String, summary: String, startMs: Int64, endMs: Int64, allDay: Bool, timeZone: String = "",
                location: String = "", attendees: [EventAttendee] = []) {
        self.id = id
        self.uid = uid
        self.summary = summary
        self.startMs = startMs
        self.endMs = endMs
        self.allDay = allDay
        self.timeZone = timeZone
        self.location = location
        self.attendees = attendees
    }
}

/// What the moments engine sees of a calendar event: its summary and its time, nothing else (no
/// attendees, no location, no description).
public struct EventSpan: Sendable, Hashable {
    /// The occurrence's id.
    public var id: String
    /// Its summary: what a moment during it may be titled.
    public var title: String
    /// When it starts, ms since 1970.
    public var startMs: Int64
    /// When it ends, ms since 1970.
    public var endMs: Int64
    /// Whether it is an all-day event.
    public var allDay: Bool
    /// Where it is, as the calendar says (`LOCATION`: "Trattoria Lucca, Bergmannstraße 52, 10961
    /// Berlin"), or "": the person's own name for a place a moment during it was at.
    public var location: String

    /// Creates a span.
    public init(id: String, title: String, startMs: Int64, endMs: Int64, allDay: Bool, location: String = "") {
        self.id = id
        self.title = title
        self.startMs = startMs
        self.endMs = endMs
        self.allDay = allDay
        self.location = location
    }

    /// Whether something starting at `timeMs` lies within the event: from its start up to (not
    /// including) its end; an event of no length holds only its own instant.
    public func holds(_ timeMs: Int64) -> Bool {
        timeMs >= startMs && (timeMs < endMs || timeMs == startMs)
    }
}

/// A photo item that names people (XMP face regions, digiKam's People tags).
public struct NamedInPhoto: Sendable, Hashable {
    /// The photo's item.
    public var itemID: UUID
    /// When it was taken, ms since 1970.
    public var startMs: Int64
    /// Its own offset from UTC, when it states one.
    public var utcOffsetSeconds: Int32?
    /// The names it gives.
    public var names: [String]
}

/// A Contact item and what makes it: the photos and the event occurrences it stands for.
public struct PersonLink: Sendable, Hashable {
    /// The Contact item.
    public var item: LibraryItem
    /// The photo items behind it.
    public var photoItemIDs: [UUID]
    /// The event occurrences behind it.
    public var eventIDs: [String]

    /// Creates a link.
    public init(item: LibraryItem, photoItemIDs: [UUID] = [], eventIDs: [String] = []) {
        self.item = item
        self.photoItemIDs = photoItemIDs
        self.eventIDs = eventIDs
    }
}

extension Store {
    /// The `source` of the Contact items made from contacts, events and photos.
    public static let peopleSource = "people"
    /// The longest event the engine's window reads look back for: longer events title nothing.
    public static let longestTitlingEventMs: Int64 = 31 * 86_400_000

    // MARK: Contacts

    /// Adds or updates contacts by their key, in one transaction.
    /// - Parameters:
    ///   - contacts: the contacts.
    ///   - timeMs: when, ms since 1970.
    /// - Returns: how many were new, and the media files of replaced photos no contact uses any more
    ///   (relative to the media directory), for the caller to delete.
    /// - Throws: ``StoreError`` `.writeFailed`; then none of them was kept.
    public func upsertContacts(_ contacts: [StoredContact], at timeMs: Int64) throws(StoreError) -> (added: Int, unusedPhotos: [String]) {
        try write("record \(contacts.count) contacts") { db in
            var added = 0
            var replaced: [String] = []
            for c in contacts {
                let previous = try String?.fetchOne(db.cachedStatement(sql: "SELECT photo_path FROM person_contact WHERE key = ?"), arguments: [c.key])
                if previous == nil, try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM person_contact WHERE key = ?"), arguments: [c.key]) == nil {
                    added += 1
                }
                if let old = previous ?? nil, old != c.photo?.relativePath { replaced.append(old) }
                try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO person_contact (key, uid, name, other_names, emails, photo_path, photo_type, photo_bytes,
                                                           photo_width, photo_height, updated_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [c.key, c.uid, c.name, c.otherNames.joined(separator: "\n"), c.emails.joined(separator: "\n"),
                                             c.photo?.relativePath, c.photo?.contentType, c.photo.map { Int64($0.byteCount) },
                                             c.photo.map { Int($0.pixelWidth) }, c.photo.map { Int($0.pixelHeight) }, timeMs])
            }
            var unused: [String] = []
            for path in Set(replaced) where try Int.fetchOne(db, sql: "SELECT 1 FROM person_contact WHERE photo_path = ?", arguments: [path]) == nil {
                unused.append(path)
            }
            return (added, unused.sorted())
        }
    }

    /// Every contact, by key. An address book is thousands of cards at most.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func contacts() throws(StoreError) -> [StoredContact] {
        try read("read contacts") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM person_contact ORDER BY key").map { row in
                let path: String? = row["photo_path"]
                let photo = path.map { path in
                    StoredMedia(relativePath: path, contentType: (row["photo_type"] as String?) ?? "image/jpeg", filename: (path as NSString).lastPathComponent,
                                byteCount: UInt64(row["photo_bytes"] as Int64? ?? 0), pixelWidth: UInt32(row["photo_width"] as Int? ?? 0),
                                pixelHeight: UInt32(row["photo_height"] as Int? ?? 0))
                }
                func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
                return StoredContact(key: row["key"], uid: row["uid"], name: row["name"], otherNames: lines(row["other_names"]),
                                     emails: lines(row["emails"]), photo: photo)
            }
        }
    }

    /// How many contacts the store holds.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func contactCount() throws(StoreError) -> Int {
        try read("count contacts") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person_contact") ?? 0 }
    }

    // MARK: Calendar events

    /// Replaces every stored occurrence of the events `uids` name with `events`, in one transaction.
    /// - Parameters:
    ///   - uids: the UIDs a calendar file holds (a cancelled event's too, so its old occurrences go).
    ///   - events: their occurrences now.
    /// - Returns: when the occurrences removed and written happen: the days the engine builds again.
    /// - Throws: ``StoreError`` `.writeFailed`; then nothing changed.
    public func replaceEvents(uids: Set<String>, with events: [CalendarEvent]) throws(StoreError) -> [ClosedRange<Int64>] {
        try write("record \(events.count) calendar events") { db in
            var touched: [ClosedRange<Int64>] = []
            let kept = Set(events.map(\.id))
            for uid in uids.sorted() {
                for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT id, start_ms, end_ms FROM calendar_event WHERE uid = ?"), arguments: [uid]) {
                    let id: String = row[0], start: Int64 = row[1], end: Int64 = row[2]
                    touched.append(start...max(start, end))
                    // An occurrence the file still holds is updated in place: what links to it stays.
                    if !kept.contains(id) { try db.cachedStatement(sql: "DELETE FROM calendar_event WHERE id = ?").execute(arguments: [id]) }
                }
            }
            for e in events {
                try db.cachedStatement(sql: """
                    INSERT INTO calendar_event (id, uid, summary, start_ms, end_ms, all_day, time_zone, location) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET uid = excluded.uid, summary = excluded.summary, start_ms = excluded.start_ms,
                        end_ms = excluded.end_ms, all_day = excluded.all_day, time_zone = excluded.time_zone, location = excluded.location
                    """).execute(arguments: [e.id, e.uid, e.summary, e.startMs, e.endMs, e.allDay, e.timeZone, e.location])
                try db.cachedStatement(sql: "DELETE FROM calendar_attendee WHERE event_id = ?").execute(arguments: [e.id])
                for (position, a) in e.attendees.enumerated() {
                    try db.cachedStatement(sql: "INSERT INTO calendar_attendee (event_id, position, name, email) VALUES (?, ?, ?, ?)")
                        .execute(arguments: [e.id, position, a.name, a.email])
                }
                touched.append(e.startMs...max(e.startMs, e.endMs))
            }
            return touched
        }
    }

    /// The event occurrences that start in [fromMs, toMs], with their attendees, by start (through
    /// `calendar_event_by_start`).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func events(startingFrom fromMs: Int64, to toMs: Int64) throws(StoreError) -> [CalendarEvent] {
        try read("read calendar events") { db in
            var events = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, uid, summary, start_ms, end_ms, all_day, time_zone, location FROM calendar_event
                WHERE start_ms BETWEEN ? AND ? ORDER BY start_ms, id
                """), arguments: [fromMs, toMs]).map { row in
                CalendarEvent(id: row[0], uid: row[1], summary: row[2], startMs: row[3], endMs: row[4], allDay: row[5], timeZone: row[6], location: row[7])
            }
            for index in events.indices {
                events[index].attendees = try Row.fetchAll(db.cachedStatement(sql: "SELECT name, email FROM calendar_attendee WHERE event_id = ? ORDER BY position"),
                                                           arguments: [events[index].id]).map { EventAttendee(name: $0[0], email: $0[1]) }
            }
            return events
        }
    }

    /// What the engine may know of the events that overlap [range.lowerBound, range.upperBound):
    /// their summaries and times. Read through `calendar_event_by_start`, looking back at most
    /// ``longestTitlingEventMs`` (longer events title nothing and are not returned).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func eventSpans(overlapping range: Range<Int64>) throws(StoreError) -> [EventSpan] {
        try read("read calendar events") { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, summary, start_ms, end_ms, all_day, location FROM calendar_event
                WHERE start_ms >= ? AND start_ms < ? AND end_ms >= ? AND end_ms - start_ms <= ? ORDER BY start_ms, id
                """), arguments: [range.lowerBound - Self.longestTitlingEventMs, range.upperBound, range.lowerBound, Self.longestTitlingEventMs])
                .map { EventSpan(id: $0[0], title: $0[1], startMs: $0[2], endMs: $0[3], allDay: $0[4], location: $0[5]) }
        }
    }

    /// When the first stored event occurrence starts and the last ends, or `nil` when there is none.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func eventRange() throws(StoreError) -> ClosedRange<Int64>? {
        try read("read calendar events") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT MIN(start_ms), MAX(end_ms) FROM calendar_event"),
                  let first: Int64 = row[0], let last: Int64 = row[1] else { return nil }
            return first...max(first, last)
        }
    }

    /// Whether the store holds any calendar event (a presentation reads events only then).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func hasEvents() throws(StoreError) -> Bool {
        try read("read calendar events") { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM calendar_event)") ?? false }
    }

    /// How many event occurrences the store holds.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func eventCount() throws(StoreError) -> Int {
        try read("count calendar events") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM calendar_event") ?? 0 }
    }

    // MARK: People in photos

    /// Records the names photo items give (replacing what was recorded of them), in one transaction.
    /// The rows go with their items (an item written again starts with none).
    /// - Parameter names: names by photo item.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func setPeople(_ names: [UUID: [String]]) throws(StoreError) {
        guard !names.isEmpty else { return }
        try write("record who \(names.count) photos name") { db in
            for (item, people) in names.sorted(by: { $0.key.orderKey < $1.key.orderKey }) {
                try db.cachedStatement(sql: "DELETE FROM item_person WHERE item_id = ?").execute(arguments: [item.text])
                guard try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM item WHERE id = ?"), arguments: [item.text]) != nil else { continue }
                for name in Set(people) {
                    try db.cachedStatement(sql: "INSERT OR IGNORE INTO item_person (item_id, name) VALUES (?, ?)").execute(arguments: [item.text, name])
                }
            }
        }
    }

    /// The photos (memories, not excluded) taken in [fromMs, toMs] that name people, by time
    /// (through the items' start index).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func namedInPhotos(startingFrom fromMs: Int64, to toMs: Int64) throws(StoreError) -> [NamedInPhoto] {
        try read("read who photos name") { db in
            var byItem: [String: NamedInPhoto] = [:]
            var order: [String] = []
            for row in try Row.fetchAll(db.cachedStatement(sql: """
                SELECT i.id, i.start_ms, i.utc_offset_s, p.name FROM item i JOIN item_person p ON p.item_id = i.id
                WHERE i.start_ms BETWEEN ? AND ? AND i.excluded = 0 AND i.not_memory IS NULL ORDER BY i.start_ms, i.id, p.name
                """), arguments: [fromMs, toMs]) {
                let id: String = row[0]
                guard let uuid = UUID.parsing(id) else { continue }
                if byItem[id] == nil {
                    order.append(id)
                    byItem[id] = NamedInPhoto(itemID: uuid, startMs: row[1], utcOffsetSeconds: (row[2] as Int?).map(Int32.init), names: [])
                }
                byItem[id]?.names.append(row[3])
            }
            return order.compactMap { byItem[$0] }
        }
    }

    /// When the first photo that names someone was taken and the last, or `nil` when none does.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func namedInPhotosRange() throws(StoreError) -> ClosedRange<Int64>? {
        try read("read who photos name") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT MIN(i.start_ms), MAX(i.start_ms) FROM item i JOIN item_person p ON p.item_id = i.id"),
                  let first: Int64 = row[0], let last: Int64 = row[1] else { return nil }
            return first...last
        }
    }

    // MARK: Contact items

    /// The Contact items made from people (``peopleSource``) that start in [fromMs, toMs].
    /// - Throws: ``StoreError`` `.unreadable`.
    public func personItemIDs(startingFrom fromMs: Int64, to toMs: Int64) throws(StoreError) -> [UUID] {
        try read("read contact items") { db in
            try String.fetchAll(db.cachedStatement(sql: "SELECT id FROM item WHERE start_ms BETWEEN ? AND ? AND source = ? ORDER BY id"),
                                arguments: [fromMs, toMs, Self.peopleSource]).compactMap(UUID.parsing)
        }
    }

    /// What makes each of these Contact items: its photos and its event occurrences.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func personLinks(of ids: [UUID]) throws(StoreError) -> [UUID: (photos: Set<UUID>, events: Set<String>)] {
        try read("read contact items") { db in
            var links: [UUID: (photos: Set<UUID>, events: Set<String>)] = [:]
            for id in ids {
                var entry: (photos: Set<UUID>, events: Set<String>) = ([], [])
                for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT photo_item_id, event_id FROM person_link WHERE contact_item_id = ?"),
                                            arguments: [id.text]) {
                    if let photo = (row[0] as String?).flatMap(UUID.parsing) { entry.photos.insert(photo) }
                    if let event: String = row[1] { entry.events.insert(event) }
                }
                links[id] = entry
            }
            return links
        }
    }

    /// Writes the Contact items people make and what makes each, and removes those no longer made,
    /// in one transaction.
    /// - Parameters:
    ///   - links: Contact items to write (replacing any with the same id), with their photos and events.
    ///   - removed: Contact items to remove.
    /// - Returns: when the items written and removed happen: the days the engine builds again.
    /// - Throws: ``StoreError`` `.writeFailed`; then nothing changed.
    public func applyPersonLinks(_ links: [PersonLink], removing removed: [UUID]) throws(StoreError) -> [ClosedRange<Int64>] {
        guard !links.isEmpty || !removed.isEmpty else { return [] }
        return try write("record \(links.count) contact items") { db in
            var touched: [ClosedRange<Int64>] = []
            for id in removed + links.map(\.item.id) {
                if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT start_ms, end_ms FROM item WHERE id = ?"), arguments: [id.text]) {
                    let start: Int64 = row[0], end: Int64 = row[1]
                    touched.append(start...max(start, end))
                }
            }
            for id in removed {
                try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id.text])
            }
            for link in links {
                let id = link.item.id.text
                // Written afresh with what makes it now (the item's old links go with its old row).
                try db.cachedStatement(sql: "DELETE FROM person_link WHERE contact_item_id = ?").execute(arguments: [id])
                try ItemCodec.insert(link.item, db)
                for photo in link.photoItemIDs {
                    try db.cachedStatement(sql: "INSERT INTO person_link (contact_item_id, photo_item_id) VALUES (?, ?)")
                        .execute(arguments: [id, photo.text])
                }
                for event in link.eventIDs {
                    try db.cachedStatement(sql: "INSERT INTO person_link (contact_item_id, event_id) VALUES (?, ?)").execute(arguments: [id, event])
                }
                touched.append(link.item.startMs...max(link.item.startMs, link.item.endMs))
            }
            return touched
        }
    }
}
