import Foundation
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Contacts and a calendar through a real pickerd: `pickerctl import` of a vCard with a photo and an
/// .ics, photos in a source folder that name the person (made with exiftool), and what an app gets
/// through the scripted picker: the moment the calendar titles, with the photos and the Contact with
/// her photo; the event's name only while a kept item lies within the event; nothing else of the
/// event, ever.
@Suite("Contacts and calendars, through pickerd", .serialized)
struct ContactsCalendarImportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PickerdImportTests/Fixtures")

    /// A pickerd with no demo library, the scripted agent on `script`, the test client registered.
    static func pickerd(script: String) throws -> RunningPickerd {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-cc")
        try script.write(toFile: root + "/script.json", atomically: true, encoding: .utf8)
        let agent = BuiltProducts.url("picker-agent").path
        let pickerd = try RunningPickerd(seed: false, root: root, extra: ["--agent-command", "\(agent) --script \(root)/script.json"])
        let entitlements = root + "/app.entitlements"
        try Entitlements.allowed.write(toFile: entitlements, atomically: true, encoding: .utf8)
        let registered = try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("pickerd-test-client").path,
                                          "--entitlements", entitlements, "--bundle-id", "com.example.test", "--name", "Test App"])
        #expect(registered.status == 0, "register: \(registered.stderr)")
        return pickerd
    }

    /// Saturday 4 May 2024 in Lisbon: a photo at 18:20 (before the dinner), then 19:10 and 19:30 and,
    /// after a pause, 21:30, each naming Maya as a different app writes it.
    static func makeEvening(_ folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let names: [[String]] = [[], ["-XMP-mwg-rs:RegionName=Maya Lee", "-XMP-mwg-rs:RegionType=Face"],
                                 ["-XMP-MP:RegionPersonDisplayName=Maya Lee"], ["-XMP-digiKam:TagsList=People/Friends/Maya Lee"]]
        for (index, time) in ["18:20", "19:10", "19:30", "21:30"].enumerated() {
            let path = "\(folder)/IMG_\(2000 + index).JPG"
            try MediaFixtures.jpeg(at: path, seed: index, exif: .init(dateTimeOriginal: "2024:05:04 \(time):00", offsetTimeOriginal: "+01:00",
                                                                      make: "Apple", model: "iPhone 13", exposureTime: 0.01))
            if !names[index].isEmpty { try MediaFixtures.writeTags(names[index], to: path) }
        }
    }

    /// What of the calendar must never reach an app: the dinner's place, its description, the other
    /// guests and their addresses, the organizer, the other events.
    static let eventCanaries = ["Taberna", "Junqueira", "Table for four", "Bring the gift", "maya@example.com", "jonas@example.org",
                                "Jonas", "sam.okafor", "Okafor", "me@example.com", "Dentist", "Book club", "long weekend", "Climbing"]

    @Test("a vCard with a photo, an .ics and photos that name her: the suggestion titled by the dinner holds the photos and her Contact with her photo; keeping only a photo from before the dinner drops its name; nothing else of the event reaches the app")
    func dinner() throws {
        let script = #"""
            {"reviews": [{"title": "Maya's birthday dinner"}, {"title": "Maya's birthday dinner", "deselect": ["1", "2", "3", "4"]}]}
            """#
        let pickerd = try Self.pickerd(script: script)
        defer { pickerd.stop() }

        // The address book first, then the photos (linked as they are indexed), then the calendar.
        let contacts = try pickerd.ctl(["import", Self.fixtures.appendingPathComponent("contacts-4.0.vcf").path])
        #expect(contacts.status == 0, "\(contacts.stdout) \(contacts.stderr)")
        #expect(contacts.stdout.contains("contacts-4.0.vcf (vcard)"), "\(contacts.stdout)")
        let pictures = pickerd.root + "/Pictures"
        try Self.makeEvening(pictures)
        let added = try pickerd.ctl(["sources", "add", pictures])
        #expect(added.status == 0, "\(added.stderr)")
        let calendar = try pickerd.ctl(["import", Self.fixtures.appendingPathComponent("calendar.ics").path])
        #expect(calendar.status == 0, "\(calendar.stdout) \(calendar.stderr)")
        #expect(calendar.stdout.contains("calendar.ics (ics)"), "\(calendar.stdout)")

        // The store: her Contact items (the invitation's, the photos' hours), the moment the dinner titles.
        let store = try Store(dataDirectory: pickerd.data)
        let people = try store.items().filter { $0.source == Store.peopleSource }
        #expect(people.count == 3, "the dinner's attendee, 18:00 UTC's photos, 20:00 UTC's photo: \(people.map(\.startMs))")
        let titles = try store.suggestions().map(\.title)
        let moment = try #require(try store.suggestions().first { $0.title == "Maya's birthday dinner" }, "\(titles)")
        #expect(moment.itemIDs.count == 5, "four photos and Maya once")
        // Importing it all again doubles nothing.
        _ = try pickerd.ctl(["import", Self.fixtures.appendingPathComponent("contacts-4.0.vcf").path, Self.fixtures.appendingPathComponent("calendar.ics").path])
        _ = try pickerd.ctl(["sources", "rescan"])
        #expect(try store.items().filter { $0.source == Store.peopleSource }.count == 3)
        let dinners = try store.suggestions().count { $0.title == "Maya's birthday dinner" }
        #expect(dinners == 1)

        // Kept whole: the event's title, the four photos, and Maya with her own photo.
        let kept = try testClient(pickerd, "present")
        #expect(kept.last?["result"] as? String == "approved", "\(kept.last ?? [:]) \(pickerd.logText.suffix(3000))")
        #expect(kept.last?["title"] as? String == "Maya's birthday dinner")
        let suggestion = try #require(approvedSuggestion(kept))
        let kinds = suggestion.items.compactMap { $0.asset.map { AssetKind($0) } }
        #expect(kinds.count { $0 == .photo } == 4, "\(kinds)")
        #expect(kinds.count { $0 == .contact } == 1, "\(kinds)")
        var released: [Contact] = []
        for item in suggestion.items {
            if case .contact(let c)? = item.asset { released.append(c) }
        }
        let contact = try #require(released.first)
        #expect(contact.name == "Maya Lee")
        let photo = try #require(contact.photo, "the Contact carries her photo")
        #expect(photo.hasFd)
        #expect(photo.contentType == "image/jpeg")
        let descriptors = (kept.last?["descriptors"] as? [[String: Any]] ?? []).compactMap { ($0["base64"] as? String).flatMap { Data(base64Encoded: $0) } }
        let card = try Data(contentsOf: Self.fixtures.appendingPathComponent("contacts-4.0.vcf"))
        let cardPhoto = try #require(String(decoding: card, as: UTF8.self).replacingOccurrences(of: "\r\n ", with: "")
            .split(separator: "\r\n").first { $0.hasPrefix("PHOTO:data:image/jpeg;base64,") }
            .flatMap { Data(base64Encoded: String($0.dropFirst("PHOTO:data:image/jpeg;base64,".count))) })
        #expect(descriptors.indices.contains(Int(photo.fdIndex)), "her photo's bytes, as the card gave them")
        #expect(descriptors[Int(photo.fdIndex)] == cardPhoto, "her photo's bytes, as the card gave them")
        let bytes = receivedBytes(kept)
        for canary in Self.eventCanaries {
            #expect(!anyContains(bytes, canary), "\(canary) of the calendar reached the app")
        }

        // Kept only the photo from before the dinner: not a word of the dinner, nor of Maya.
        let before = try testClient(pickerd, "present")
        #expect(before.last?["result"] as? String == "approved", "\(before.last ?? [:])")
        let title = before.last?["title"] as? String ?? ""
        #expect(title == "Saturday evening in pictures", "\(title)")
        #expect((before.last?["items"] as? [[String: String]])?.map { $0["kind"] } == ["photo"])
        let beforeBytes = receivedBytes(before)
        for canary in Self.eventCanaries + ["birthday", "dinner", "Maya"] {
            #expect(!anyContains(beforeBytes, canary), "\(canary) reached the app, though nothing of the dinner was kept")
        }
    }
}
