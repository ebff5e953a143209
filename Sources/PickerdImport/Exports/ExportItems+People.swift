import Foundation
import PickerdMoments
import PickerdStore

extension ImportedData {
    /// What a vCard or calendar file held, by a plural noun a person reads: `contacts`,
    /// `contact photos`, `events` (VEVENTs, cancelled ones aside) and `occurrences` (when
    /// recurrences made more of them).
    var peopleCounts: [String: Int] {
        var counts: [String: Int] = [:]
        if !contacts.isEmpty { counts["contacts"] = contacts.count }
        let photos = contacts.count { $0.photo != nil }
        if photos > 0 { counts["contact photos"] = photos }
        let held = events.filter { !$0.occurrences.isEmpty }
        if !held.isEmpty { counts["events"] = held.count }
        let occurrences = held.reduce(0) { $0 + $1.occurrences.count }
        if occurrences > held.count { counts["occurrences"] = occurrences }
        return counts
    }
}

extension ExportItems {
    /// Writes a file's contacts and calendar events (neither is a library item), then makes again
    /// the Contact items they give (``PeopleLinks``).
    ///
    /// Contacts are matched by key (their UID, else their name): a card imported again updates its
    /// contact. Its photo is written into the store's media directory (`people/`, named by the key)
    /// and read back as an image (its size from its own bytes; a file the reader refuses is left
    /// out). Events replace every stored occurrence of their UIDs. The file's own data is one
    /// transaction; the Contact items it gives follow in their own.
    /// - Parameters:
    ///   - data: what the file held.
    ///   - written: what was written, added to.
    /// - Throws: ``StoreError``.
    func writePeople(_ data: ImportedData, written: inout Written) throws(StoreError) {
        guard !data.contacts.isEmpty || !data.events.isEmpty else { return }
        let links = PeopleLinks(store: store)
        if !data.contacts.isEmpty {
            var contacts: [StoredContact] = []
            for contact in data.contacts {
                contacts.append(StoredContact(key: contact.key, uid: contact.uid, name: contact.name, otherNames: contact.otherNames,
                                              emails: contact.emails, photo: try photo(of: contact)))
            }
            let (_, unused) = try store.upsertContacts(contacts, at: Int64(Date().timeIntervalSince1970 * 1000))
            for path in unused { try? FileManager.default.removeItem(atPath: store.mediaDirectory + "/" + path) }
            // New names and addresses may match anyone anywhere: every Contact item is made again.
            let relinked = try links.relinkAll()
            written.added += relinked.written
            written.touched += relinked.touched
        }
        if !data.events.isEmpty {
            let occurrences = data.events.flatMap { event in
                event.occurrences.map { o in
                    CalendarEvent(id: SuggestionBuilder.stableID("event|\(event.uid)|\(o.key)").uuidString, uid: event.uid, summary: event.summary,
                                  startMs: o.startMs, endMs: o.endMs, allDay: event.allDay, timeZone: event.timeZone, location: event.location,
                                  attendees: event.attendees)
                }
            }
            // An event twice in one file (the same UID and occurrence): the later one stands.
            var byID: [String: CalendarEvent] = [:]
            for occurrence in occurrences { byID[occurrence.id] = occurrence }
            let touched = try store.replaceEvents(uids: Set(data.events.map(\.uid)), with: byID.values.sorted { ($0.startMs, $0.id) < ($1.startMs, $1.id) })
            let relinked = try links.relink(touched)
            written.added += relinked.written
            written.touched += touched + relinked.touched
        }
    }

    /// A contact's photo written into the store's media directory, its type and size read back from
    /// the file; nil when it has none or the file is not an image the probe reads.
    private func photo(of contact: ImportedContact) throws(StoreError) -> StoredMedia? {
        guard let bytes = contact.photo, let type = contact.photoType else { return nil }
        let name = SuggestionBuilder.stableID("contact-photo|\(contact.key)").uuidString.lowercased() + (type == "image/png" ? ".png" : ".jpg")
        let relative = "people/" + name
        try store.writeMedia(bytes, to: relative)
        let path = store.mediaDirectory + "/" + relative
        // A vCard's bytes, read back by a reader (the person's confined one in pickerd), never here.
        guard let probed = try? reading.probe(path: path, timeZone: .current, readPeople: false).media, probed.kind == .photo, probed.contentType == type,
              probed.pixelWidth > 0, probed.pixelHeight > 0 else {
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        return StoredMedia(relativePath: relative, contentType: type, filename: name, byteCount: UInt64(bytes.count),
                           pixelWidth: probed.pixelWidth, pixelHeight: probed.pixelHeight)
    }
}
