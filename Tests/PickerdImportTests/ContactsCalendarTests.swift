import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Contacts (vCard 2.1, 3.0, 4.0) and calendars (.ics, through libical) on real-format files
/// (Fixtures/, see its README), what importing them stores, the Contact items they give, and how
/// calendar events join and title moments.
@Suite struct ContactsCalendarTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func cards(_ text: String) throws(ImportError) -> VCardReader.Result {
        try VCardReader.read(Array(text.utf8), file: "test.vcf")
    }

    static func refusal(_ body: () throws(ImportError) -> Void) -> ImportError? {
        do {
            try body()
            Issue.record("expected the file to be refused")
            return nil
        } catch {
            return error
        }
    }

    static func cardRefusal(_ text: String) -> String? {
        refusal { () throws(ImportError) in _ = try cards(text) }?.description
    }

    static let utc = TimeZone(identifier: "UTC")!
    static func ms(_ iso: String) -> Int64 { Int64(ISO8601DateFormatter().date(from: iso)!.timeIntervalSince1970 * 1000) }
    /// 2020 to the end of 2025: the fixtures' years.
    static let horizon = ms("2020-01-01T00:00:00Z")...ms("2025-12-31T23:59:59Z")

    // MARK: vCard

    @Test("vCard 4.0 (Nextcloud): folded lines, escaped commas, UID, emails, a data: URI photo; a photo URL is never fetched")
    func vcard4() throws {
        let result = try VCardReader.read(try Self.fixture("contacts-4.0.vcf"), file: "contacts-4.0.vcf")
        #expect(result.contacts.map(\.name) == ["Maya Lee", "Jonas Berg", "Dr. Ana Lee, MD"])
        let maya = result.contacts[0]
        #expect(maya.uid == "6f1c2d3e-0a1b-4c5d-8e9f-000000000001")
        #expect(maya.key == "uid:6f1c2d3e-0a1b-4c5d-8e9f-000000000001")
        #expect(maya.emails == ["maya@example.com", "Maya.Lee@work.example"])
        // The photo was folded over several lines: the bytes are the fixture's JPEG exactly.
        #expect(maya.photoType == "image/jpeg")
        #expect(maya.photo?.count == 287)
        #expect(maya.photo?.prefix(3) == [0xFF, 0xD8, 0xFF])
        #expect(result.contacts[1].photo == nil, "https://… is never fetched")
        #expect(result.photosLeftOut == 1)
        let ana = result.contacts[2]
        #expect(ana.otherNames == ["Ana Lee"])
        #expect(ana.photoType == "image/png")
        #expect(ana.photo?.count == 83)
    }

    @Test("vCard 3.0 (Evolution, an iPhone): PHOTO;ENCODING=b, grouped properties (item1.EMAIL)")
    func vcard3() throws {
        let result = try VCardReader.read(try Self.fixture("contacts-3.0.vcf"), file: "contacts-3.0.vcf")
        #expect(result.contacts.map(\.name) == ["Sam Okafor", "Rita Costa"])
        #expect(result.contacts[0].uid == "pas-id-5F2A9C1E00000001")
        #expect(result.contacts[0].emails == ["sam@example.net"])
        #expect(result.contacts[0].photoType == "image/jpeg")
        #expect(result.contacts[0].photo?.count == 286)
        #expect(result.contacts[1].emails == ["rita.costa@example.pt"])
        #expect(result.contacts[1].uid == nil)
        #expect(result.contacts[1].key == "name:rita costa")
    }

    @Test("vCard 2.1 (Android): quoted-printable UTF-8 with a soft line break, a BASE64 photo on indented lines, N without FN; a card with no name is skipped")
    func vcard21() throws {
        let result = try VCardReader.read(try Self.fixture("contacts-2.1.vcf"), file: "contacts-2.1.vcf")
        #expect(result.contacts.map(\.name) == ["José Álvarez", "Kenji Nakamura"])
        #expect(result.contacts[0].emails == ["jose@example.com"])
        #expect(result.contacts[0].photoType == "image/jpeg")
        #expect(result.contacts[0].photo?.count == 286)
        #expect(result.nameless == 1)
        // The soft line break joined the note's two lines (the note itself is not kept).
        let lines = VCardReader.logicalLines(try Self.fixture("contacts-2.1.vcf"))
        #expect(lines.contains { String(decoding: $0.bytes, as: UTF8.self) == "NOTE;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Lives by the park and brings =C3=A9clairs" })
    }

    @Test("folded lines are unfolded (CRLF and one space or tab), wherever they fall")
    func folding() throws {
        let result = try Self.cards("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ma\r\n ya L\r\n\tee\r\nEMAIL:maya@exa\r\n mple.com\r\nEND:VCARD\r\n")
        #expect(result.contacts.first?.name == "Maya Lee")
        #expect(result.contacts.first?.emails == ["maya@example.com"])
    }

    @Test("a malformed card file is refused whole, naming the line")
    func malformedCards() throws {
        let broken = Self.refusal { () throws(ImportError) in _ = try VCardReader.read(try! Self.fixture("broken.vcf"), file: "broken.vcf") }
        #expect(broken?.description == "broken.vcf, line 9: not a vCard property (NAME:value)")
        #expect(Self.cardRefusal("BEGIN:VCARD\nVERSION:3.0\nFN:Maya Lee\n")
            == "test.vcf, line 1: a card that never ends (no END:VCARD)")
        #expect(Self.cardRefusal("BEGIN:VCARD\nFN:A\nEND:VCARD\nFN:Stray\n")
            == "test.vcf, line 4: text outside a card (BEGIN:VCARD … END:VCARD)")
        #expect(Self.cardRefusal("BEGIN:VCARD\nVERSION:3.0\nFN:A\nPHOTO;ENCODING=b:@@@not base64@@@\nEND:VCARD\n")
            == "test.vcf, line 4: a PHOTO whose base64 is broken")
        #expect(Self.cardRefusal("BEGIN:VCARD\nVERSION:5.0\nFN:A\nEND:VCARD\n")
            == "test.vcf, line 2: vCard version 5.0 is not 2.1, 3.0 or 4.0")
        #expect(Self.cardRefusal("END:VCARD\n") == "test.vcf, line 1: END:VCARD without BEGIN:VCARD")
    }

    @Test("a photo that is not a JPEG or PNG by its bytes, or too large, is left out; the contact stays")
    func photoChecks() throws {
        let gif = Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8).base64EncodedString()
        let result = try Self.cards("BEGIN:VCARD\nVERSION:3.0\nFN:A\nPHOTO;ENCODING=b;TYPE=JPEG:\(gif)\nEND:VCARD\n")
        #expect(result.contacts.first?.photo == nil, "a GIF called JPEG")
        #expect(result.photosLeftOut == 1, "a GIF called JPEG")
        let big = String(repeating: "A", count: (VCardReader.maximumPhotoBytes / 3 + 10) * 4)
        let large = try Self.cards("BEGIN:VCARD\nVERSION:4.0\nFN:B\nPHOTO:data:image/jpeg;base64,\(big)\nEND:VCARD\n")
        #expect(large.contacts.first?.photo == nil)
        #expect(large.photosLeftOut == 1)
    }

    @Test("kinds come from the first bytes: BEGIN:VCARD and BEGIN:VCALENDAR after a BOM and blank lines, in any case")
    func detection() {
        #expect(ExportKind.detect([0xEF, 0xBB, 0xBF] + Array("\r\n\r\nbegin:vcard\r\nVERSION:3.0".utf8), name: "x.txt") == .vcard)
        #expect(ExportKind.detect(Array("\n  BEGIN:VCALENDAR  \r\nVERSION:2.0".utf8), name: "x") == .ics)
        #expect(ExportKind.detect(Array("BEGIN:VTODO\r\n".utf8), name: "x.ics") == nil)
    }

    // MARK: Calendar

    @Test("an .ics with a VTIMEZONE, a zone only the system knows, UTC, a floating time, an all-day holiday, a yearly birthday, an EXDATE, a moved occurrence and a cancelled event")
    func calendar() throws {
        let events = try CalendarReader.read(try Self.fixture("calendar.ics"), file: "calendar.ics", horizon: Self.horizon, timeZone: Self.utc)
        func event(_ uid: String) throws -> ImportedEvent { try #require(events.first { $0.uid == uid && $0.recurrenceID == nil }) }

        // 19:00 in Lisbon in May is 18:00 UTC (the file's VTIMEZONE: WEST, +01:00).
        let dinner = try event("dinner-2024@example.com")
        #expect(dinner.summary == "Maya's birthday dinner")
        #expect(dinner.timeZone == "Europe/Lisbon")
        #expect(dinner.occurrences.map(\.startMs) == [Self.ms("2024-05-04T18:00:00Z")])
        #expect(dinner.occurrences.map(\.endMs) == [Self.ms("2024-05-04T21:00:00Z")])
        #expect(dinner.location == "Taberna da Rua, Rua da Junqueira 1, Lisboa")
        #expect(dinner.attendees == [EventAttendee(name: "Maya Lee", email: "maya@example.com"),
                                     EventAttendee(name: "Sam Okafor", email: "sam.okafor@elsewhere.example")], "Jonas declined")
        #expect(!dinner.allDay)
        #expect(dinner.line == 26)

        let dentist = try event("dentist-0506@example.com")
        #expect(dentist.timeZone == "UTC")
        #expect(dentist.occurrences.first?.startMs == Self.ms("2024-05-06T09:00:00Z"))
        // A floating time is the person's wall clock.
        #expect(try event("book-club@example.com").occurrences.first?.startMs == Self.ms("2024-05-07T18:30:00Z"))
        let lisbon = try CalendarReader.read(try Self.fixture("calendar.ics"), file: "calendar.ics", horizon: Self.horizon,
                                             timeZone: TimeZone(identifier: "Europe/Lisbon")!)
        #expect(lisbon.first { $0.uid == "book-club@example.com" }?.occurrences.first?.startMs == Self.ms("2024-05-07T17:30:00Z"))

        let weekend = try event("long-weekend@example.com")
        #expect(weekend.allDay)
        #expect(weekend.timeZone.isEmpty)
        #expect(weekend.occurrences.map { [$0.startMs, $0.endMs] } == [[Self.ms("2024-05-10T00:00:00Z"), Self.ms("2024-05-13T00:00:00Z")]])

        // Yearly since 1990, expanded within the horizon only: 12 May 2020 … 2025, a day each.
        let birthday = try event("maya-birthday@example.com")
        #expect(birthday.occurrences.map(\.startMs) == (2020...2025).map { Self.ms("\($0)-05-12T00:00:00Z") })
        #expect(birthday.occurrences.allSatisfy { $0.endMs - $0.startMs == 86_400_000 })

        // Weekly ×4 from 2 September in New York (EDT, −4): the 9th excluded, the 16th moved to the 17th.
        let climbing = try event("climbing@example.com")
        #expect(climbing.timeZone == "America/New_York")
        #expect(climbing.occurrences.map(\.startMs) == [Self.ms("2024-09-02T22:00:00Z"), Self.ms("2024-09-23T22:00:00Z")])
        let moved = try #require(events.first { $0.uid == "climbing@example.com" && $0.recurrenceID != nil })
        #expect(moved.summary == "Climbing (moved to Tuesday)")
        #expect(moved.occurrences.map { [$0.startMs, $0.key] } == [[Self.ms("2024-09-17T22:00:00Z"), Self.ms("2024-09-16T22:00:00Z")]])

        #expect(try event("cancelled@example.com").occurrences.isEmpty)
        var data = ImportedData()
        data.events = events
        #expect(data.peopleCounts == ["events": 7, "occurrences": 13])
    }

    @Test("a broken .ics structure is refused whole with the line (END without its BEGIN, a file cut short); an event that cannot be read (a bad date, an unknown TZID, an unreadable RRULE or DURATION, no DTSTART, a stray line) is left out with its line and reason, the rest kept")
    func brokenCalendars() throws {
        func refusal(_ text: String) -> String? {
            Self.refusal { () throws(ImportError) in _ = try CalendarReader.read(Array(text.utf8), file: "test.ics", horizon: Self.horizon, timeZone: Self.utc) }?.description
        }
        /// The reasons the events of `text` were left out, after a good event that is kept.
        func leftOut(_ text: String) throws -> [String] {
            let fine = "BEGIN:VEVENT\nUID:fine\nDTSTART:20240504T180000Z\nEND:VEVENT\n"
            let read = try CalendarReader.events(Array((text.replacingOccurrences(of: "END:VCALENDAR\n", with: fine + "END:VCALENDAR\n")).utf8),
                                                 file: "test.ics", horizon: Self.horizon, timeZone: Self.utc)
            #expect(read.events.map(\.uid) == ["fine"])
            return read.skipped.map { "line \($0.line): \($0.reason)" }
        }
        let fixture = try CalendarReader.events(try Self.fixture("broken.ics"), file: "broken.ics", horizon: Self.horizon)
        #expect(fixture.events.map(\.uid) == ["ok@example.com"])
        #expect(fixture.skipped.map { "line \($0.line): \($0.reason)" }
            == ["line 9: line 11: DTSTART \"20240230T100000Z\" is not a date (YYYYMMDD) or a date-time (YYYYMMDDTHHMMSS[Z])"])
        let head = "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:a\n"
        #expect(refusal(head + "DTSTART:20240504T180000Z\nEND:VTODO\nEND:VCALENDAR\n")
            == "test.ics, line 6: END:VTODO where END:VEVENT (begun at line 3) was expected")
        #expect(refusal(head + "DTSTART:20240504T180000Z\nSUMMARY:Cut") == "test.ics, line 3: BEGIN:VEVENT never ends (the file is cut short?)")
        #expect(try leftOut(head + "DTSTART;TZID=Mars/Olympus_Mons:20240504T180000\nEND:VEVENT\nEND:VCALENDAR\n")
            == ["line 3: line 5: TZID \"Mars/Olympus_Mons\" has no VTIMEZONE in the file and is not a time zone the system knows"])
        #expect(try leftOut(head + "DTSTART:20240504T180000Z\nRRULE:FREQ=SOMETIMES\nEND:VEVENT\nEND:VCALENDAR\n")
            == ["line 3: line 6: RRULE \"FREQ=SOMETIMES\" is not a recurrence rule libical reads"])
        #expect(try leftOut(head + "SUMMARY:No start\nEND:VEVENT\nEND:VCALENDAR\n") == ["line 3: an event (BEGIN:VEVENT) with no DTSTART"])
        #expect(try leftOut(head + "DTSTART:20240504T180000Z\nnot a property\nEND:VEVENT\nEND:VCALENDAR\n")
            == ["line 3: line 6 is not an iCalendar property (NAME:value)"])
        #expect(try leftOut(head + "DTSTART:20240504T180000Z\nDURATION:1 hour\nEND:VEVENT\nEND:VCALENDAR\n")
            == ["line 3: line 6: DURATION \"1 hour\" is not a duration (such as PT1H30M)"])
    }

    @Test("a recurrence is expanded within the horizon only, and bounded")
    func horizon() throws {
        let now = Self.ms("2024-06-01T00:00:00Z")
        let empty = CalendarReader.horizon(library: nil, now: now)
        #expect(empty.lowerBound < Self.ms("2004-06-02T00:00:00Z"))
        #expect(empty.upperBound > Self.ms("2025-05-31T00:00:00Z"))
        let old = CalendarReader.horizon(library: Self.ms("1950-01-01T00:00:00Z")...Self.ms("2024-01-01T00:00:00Z"), now: now)
        #expect(old.upperBound - old.lowerBound == CalendarReader.maximumHorizonMs, "capped: the earliest years go")
        let daily = "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:d\nDTSTART:20000101T080000Z\nRRULE:FREQ=DAILY\nSUMMARY:Standup\nEND:VEVENT\nEND:VCALENDAR\n"
        let events = try CalendarReader.read(Array(daily.utf8), file: "d.ics", horizon: Self.horizon, timeZone: Self.utc)
        // Capped (the reader asks libical for a day's slack either side, so a couple fall outside).
        #expect((CalendarReader.maximumOccurrencesPerEvent - 2...CalendarReader.maximumOccurrencesPerEvent).contains(events[0].occurrences.count))
        #expect(events[0].occurrences.first?.startMs == Self.ms("2020-01-01T08:00:00Z"))
    }

    // MARK: Importing into a store

    @Test("importing contacts and a calendar stores them with counts; the same files again update, never double; attendees who are contacts become Contact items at the event")
    func importing() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let importer = ExportImporter(store: store)
        let paths = ["contacts-4.0.vcf", "contacts-3.0.vcf", "calendar.ics"].map { Self.fixtures.appendingPathComponent($0).path }
        let first = importer.run(paths) { _, _, _, _ in }
        #expect(first.map(\.error) == [nil, nil, nil])
        #expect(first.map(\.kind) == ["vcard", "vcard", "ics"])
        #expect(first[0].counts == ["contacts": 3, "contact photos": 2, "contact photos left out": 1])
        #expect(first[1].counts == ["contacts": 2, "contact photos": 1])
        #expect(first[2].counts["events"] == 7)
        let contacts = try store.contacts()
        #expect(contacts.count == 5)
        let maya = try #require(contacts.first { $0.name == "Maya Lee" })
        let photo = try #require(maya.photo)
        #expect(photo.contentType == "image/jpeg")
        #expect(photo.pixelWidth == 8)
        #expect(photo.pixelHeight == 8)
        let card = try VCardReader.read(try Self.fixture("contacts-4.0.vcf"), file: "contacts-4.0.vcf").contacts[0]
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path(of: photo))) == Data(try #require(card.photo)))

        // Maya (by her address) and Sam (by name: the invitation has another address) were at the dinner.
        let people = try store.items().filter { $0.source == Store.peopleSource }
        #expect(Set(people.map { item -> String in if case .contact(let c) = item.asset { c.name } else { "" } }) == ["Maya Lee", "Sam Okafor"])
        #expect(people.allSatisfy { $0.startMs == Self.ms("2024-05-04T18:00:00Z") })
        let mayaItem = try #require(people.first { if case .contact(let c) = $0.asset { c.name == "Maya Lee" } else { false } })
        if case .contact(let c) = mayaItem.asset { #expect(c.photo?.contentType == "image/jpeg", "the Contact item carries her photo") }
        #expect(mayaItem.media.first?.relativePath == photo.relativePath)
        #expect(first[2].added == 2)

        // Again: nothing doubles; a changed card updates its contact (same UID, new address and name).
        let again = importer.run(paths) { _, _, _, _ in }
        #expect(again.map(\.error) == [nil, nil, nil])
        #expect(again.map(\.added) == [0, 0, 0])
        #expect(try store.contacts().count == 5)
        #expect(try store.eventCount() == first[2].counts["occurrences"]!)
        let changed = try TemporaryDirectory(prefix: "pkd-vcf")
        try "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:6f1c2d3e-0a1b-4c5d-8e9f-000000000001\r\nFN:Maya Lee-Santos\r\nEMAIL:maya@example.com\r\nEND:VCARD\r\n"
            .write(toFile: changed.path + "/maya.vcf", atomically: true, encoding: .utf8)
        _ = importer.run([changed.path]) { _, _, _, _ in }
        let updated = try store.contacts()
        #expect(updated.count == 5)
        #expect(updated.first { $0.uid == "6f1c2d3e-0a1b-4c5d-8e9f-000000000001" }?.name == "Maya Lee-Santos")
        #expect(updated.first { $0.uid == "6f1c2d3e-0a1b-4c5d-8e9f-000000000001" }?.photo == nil)
        #expect(!FileManager.default.fileExists(atPath: store.path(of: photo)), "the photo it no longer has is removed")
        let renamed = try store.items().filter { $0.source == Store.peopleSource }
        #expect(renamed.count == 2)
        #expect(renamed.contains { if case .contact(let c) = $0.asset { c.name == "Maya Lee-Santos" && c.photo == nil } else { false } })

        // A calendar with one broken event keeps the rest and names the one left out.
        let broken = importer.run([Self.fixtures.appendingPathComponent("broken.ics").path]) { _, _, _, _ in }
        #expect(broken.first?.error == nil)
        #expect(broken.first?.counts.keys.contains { $0.hasPrefix("events left out (the event at line 9: line 11: DTSTART") } == true)
        #expect(try store.eventCount() == first[2].counts["occurrences"]! + 1)
    }

    @Test("a folder of .vcf files (a vdir, as DAVx⁵ and Nextcloud export) is imported card by card, the same UID once")
    func vdir() throws {
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixtures.appendingPathComponent("addressbook").path,
                                                                  Self.fixtures.appendingPathComponent("contacts-4.0.vcf").path]) { _, _, _, _ in }
        #expect(results.count == 3)
        #expect(results.allSatisfy { $0.error == nil && $0.kind == "vcard" })
        #expect(try temporary.store.contacts().map(\.name).sorted() == ["Dr. Ana Lee, MD", "Jonas Berg", "Maya Lee", "Tomás Silva"])
    }

    // MARK: Photos that name people

    @Test("XMP as exiftool writes it: MWG face regions, Microsoft's regions, digiKam's People tags; a pet's region names no one")
    func xmpNames() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-xmp")
        let jpeg = folder.path + "/party.jpg", heic = folder.path + "/party.heic"
        try MediaFixtures.jpeg(at: jpeg, exif: .init(dateTimeOriginal: "2024:05:04 19:10:00"))
        try MediaFixtures.writeTags(["-XMP-mwg-rs:RegionName=Maya Lee", "-XMP-MP:RegionPersonDisplayName=Sam  Okafor",
                                     "-XMP-digiKam:TagsList=People/Friends/Rita Costa", "-XMP-digiKam:TagsList+=People/Unknown",
                                     "-XMP-digiKam:TagsList+=Places/Lisbon"], to: jpeg)
        let (media, people) = try MediaProbe.probe(path: jpeg, readPeople: true)
        #expect(media.takenAtMs != nil)
        #expect(people == ["Sam Okafor", "Rita Costa", "Maya Lee"] || Set(people) == ["Maya Lee", "Sam Okafor", "Rita Costa"], "\(people)")
        #expect(try MediaProbe.probe(path: jpeg, readPeople: false).people.isEmpty)

        try MediaFixtures.heic(at: heic, exif: .init(dateTimeOriginal: "2024:05:04 19:30:00"))
        try MediaFixtures.writeTags(["-XMP-mwg-rs:RegionName=Maya Lee"], to: heic)
        #expect(try MediaProbe.probe(path: heic, readPeople: true).people == ["Maya Lee"])

        let pet = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/"><mwg-rs:Regions><mwg-rs:RegionList><rdf:Bag>
            <rdf:li><rdf:Description mwg-rs:Name="Rex" mwg-rs:Type="Pet"/></rdf:li>
            <rdf:li><rdf:Description mwg-rs:Name="Jonas Berg" mwg-rs:Type="Face"/></rdf:li>
            </rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        #expect(XMPPeople.names(inPacket: pet) == ["Jonas Berg"])
    }

    @Test("photos that name a contact give one Contact item per contact per hour, at the first; a rescan does not double them; deleting the photos removes it")
    func photosNamePeople() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        _ = ExportImporter(store: store).run([Self.fixtures.appendingPathComponent("contacts-4.0.vcf").path]) { _, _, _, _ in }
        let folder = try TemporaryDirectory(prefix: "pkd-named")
        for (index, time) in ["19:10", "19:30", "21:30"].enumerated() {
            let path = "\(folder.path)/IMG_\(index).JPG"
            try MediaFixtures.jpeg(at: path, seed: index, exif: .init(dateTimeOriginal: "2024:05:04 \(time):00", offsetTimeOriginal: "+01:00"))
            try MediaFixtures.writeTags(["-XMP-mwg-rs:RegionName=Maya Lee", "-XMP-mwg-rs:RegionName+=Someone Unknown"], to: path)
        }
        let source = try store.addSource(path: folder.path, timeMs: 0)
        _ = try SourceIndexer(store: store).scan(source)
        func contactItems() throws -> [LibraryItem] { try store.items().filter { $0.source == Store.peopleSource } }
        let made = try contactItems()
        #expect(made.map(\.startMs).sorted() == [Self.ms("2024-05-04T18:10:00Z"), Self.ms("2024-05-04T20:30:00Z")])
        #expect(made.allSatisfy { $0.utcOffsetSeconds == 3600 && $0.media.count == 1 })
        _ = try SourceIndexer(store: store).scan(source)
        #expect(try contactItems().map(\.id).sorted { $0.uuidString < $1.uuidString } == made.map(\.id).sorted { $0.uuidString < $1.uuidString })

        // The 21:30 photo goes: its hour's Contact item goes with it.
        try FileManager.default.removeItem(atPath: folder.path + "/IMG_2.JPG")
        _ = try SourceIndexer(store: store).scan(source)
        #expect(try contactItems().map(\.startMs) == [Self.ms("2024-05-04T18:10:00Z")])
        // The source goes: so does the rest (the store's trigger, whoever removes the photos).
        _ = try store.removeSource(path: folder.path)
        #expect(try contactItems().isEmpty)
    }

    // MARK: Events in moments

    static func photo(_ iso: String, _ n: Int) -> LibraryItem {
        let t = ms(iso)
        return LibraryItem(id: SuggestionBuilder.stableID("photo|\(n)"), asset: .photo(Photo(photo: Media(), date: Timestamp(unixMs: t))),
                           startMs: t, source: "file", utcOffsetSeconds: 3600)
    }

    static func contact(_ name: String, _ iso: String) -> LibraryItem {
        LibraryItem(id: SuggestionBuilder.stableID("contact|\(name)|\(iso)"), asset: .contact(Contact(name: name)), startMs: ms(iso),
                    source: Store.peopleSource)
    }

    static let dinner = EventSpan(id: "dinner", title: "Maya's birthday dinner", startMs: ms("2024-05-04T18:00:00Z"),
                                  endMs: ms("2024-05-04T21:00:00Z"), allDay: false)

    @Test("an event joins the photos that reach into it (across a pause) and the people there into one moment titled by it; a kept subset keeps the name only while an item lies within the event")
    func eventMoment() throws {
        let builder = SuggestionBuilder(timeZone: Self.utc)
        // 18:20 (before the dinner, in the run that reaches into it), 19:10 and 19:30, then 21:30 after a two-hour pause.
        let photos = [Self.photo("2024-05-04T17:20:00Z", 1), Self.photo("2024-05-04T18:10:00Z", 2), Self.photo("2024-05-04T18:30:00Z", 3),
                      Self.photo("2024-05-04T20:30:00Z", 4)]
        let maya = Self.contact("Maya Lee", "2024-05-04T18:00:00Z"), again = Self.contact("Maya Lee", "2024-05-04T18:10:00Z")
        let library = photos + [maya, again]
        let built = builder.build(from: library, home: HomeBase(), owning: Int64.min..<Int64.max, events: [Self.dinner])
        #expect(built.count == 1, "\(built.map(\.title))")
        let moment = try #require(built.first)
        #expect(moment.title == "Maya's birthday dinner")
        #expect(moment.kind == .photos)
        #expect(moment.itemIDs == [photos[0].id, maya.id, photos[1].id, photos[2].id, photos[3].id], "Maya once")

        // Without the event: two runs (one of three photos), Maya standing alone once.
        let plain = builder.build(from: library, home: HomeBase(), owning: Int64.min..<Int64.max)
        #expect(!plain.contains { $0.title.contains("birthday") })
        #expect(plain.count { $0.kind == .contact } == 1)

        let byID = Dictionary(uniqueKeysWithValues: library.map { ($0.id, $0) })
        let everything = Set(PickerdWire.Category.allKnown)
        let listed = try #require(builder.listing(moment, items: byID, enabled: everything, events: [Self.dinner]))
        #expect(listed.suggestion.title == "Maya's birthday dinner")
        #expect(builder.title(of: listed, kept: [photos[2]]) == "Maya's birthday dinner", "a kept photo lies within the dinner")
        #expect(builder.title(of: listed, kept: [photos[0]]) == "Saturday evening in pictures", "nothing kept lies within it")
        // Contacts off: what remains lies within the event, and keeps its name; photos off too: Maya alone, within it.
        let noContacts = try #require(builder.listing(moment, items: byID, enabled: everything.subtracting([.contacts]), events: [Self.dinner]))
        #expect(noContacts.suggestion.title == "Maya's birthday dinner")
        let onlyBefore = StoredSuggestion(id: moment.id, title: moment.title, kind: moment.kind, startMs: moment.startMs, endMs: moment.endMs,
                                          score: moment.score, itemIDs: [photos[0].id, maya.id])
        let withoutMaya = try #require(builder.listing(onlyBefore, items: byID, enabled: everything.subtracting([.contacts]), events: [Self.dinner]))
        #expect(withoutMaya.suggestion.title == "Saturday evening in pictures")
        #expect(builder.listing(moment, items: byID, enabled: everything, events: []).map { builder.title(of: $0, kept: [photos[1]]) }
            == "Saturday evening in pictures", "no event known: no event's name")
    }

    static func stay(_ place: String, _ from: String, _ to: String) -> LibraryItem {
        LibraryItem(id: SuggestionBuilder.stableID("stay|\(place)|\(from)"),
                    asset: .location(Location(place: place, location: GeoLocation(latitude: 52.5, longitude: 13.4))),
                    startMs: ms(from), endMs: ms(to), source: "import")
    }

    @Test("a stay lies within an event when they share half the shorter's length: the dinner's stay begun late does, the weekend at home begun as the hike ends does not")
    func staysWithinEvents() {
        let builder = SuggestionBuilder(timeZone: Self.utc)
        let hike = EventSpan(id: "hike", title: "Hike with Jonas", startMs: Self.ms("2024-05-04T06:00:00Z"),
                             endMs: Self.ms("2024-05-04T12:00:00Z"), allDay: false, location: "Buckow")
        // Home from 11:42 on Saturday to Monday; Sunday's photos at home.
        let weekend = Self.stay("Home", "2024-05-04T11:42:00Z", "2024-05-06T07:00:00Z")
        let sunday = [Self.photo("2024-05-05T12:00:00Z", 30), Self.photo("2024-05-05T13:00:00Z", 31)]
        #expect(builder.titlingEvent(.timeAtHome, [weekend] + sunday, events: [hike]) == nil, "18 minutes of a six-hour hike")
        #expect(builder.title(.timeAtHome, [weekend] + sunday, events: [hike]) != "Hike with Jonas")

        // The dinner's stay, begun five minutes in and ending after it; a short stay inside a long event.
        let restaurant = Self.stay("Taberna", "2024-05-04T18:05:00Z", "2024-05-04T21:20:00Z")
        #expect(builder.titlingEvent(.outing, [restaurant], events: [Self.dinner]) == Self.dinner)
        let drinks = Self.stay("Bar Raval", "2024-05-04T19:00:00Z", "2024-05-04T19:40:00Z")
        #expect(builder.titlingEvent(.outing, [drinks], events: [Self.dinner]) == Self.dinner)
        // A stay that only begins in the dinner's last ten minutes is not the dinner's.
        let after = Self.stay("Bar Raval", "2024-05-04T20:50:00Z", "2024-05-04T23:30:00Z")
        #expect(builder.titlingEvent(.outing, [after], events: [Self.dinner]) == nil)
        // A photo taken then still is.
        #expect(builder.titlingEvent(.outing, [after, Self.photo("2024-05-04T20:55:00Z", 32)], events: [Self.dinner]) == Self.dinner)
    }

    @Test("an all-day event of several days titles the trip it covers; a single day's all-day event titles nothing; events are read by time window")
    func holidayTrip() throws {
        let builder = SuggestionBuilder(timeZone: Self.utc)
        let home = HomeBase(coordinate: Coordinate(latitude: 40.78, longitude: -73.97))
        let lisbon = Coordinate(latitude: 38.72, longitude: -9.14)
        let trip = (0..<3).map { day -> LibraryItem in
            var p = Self.photo("2024-05-1\(day)T12:00:00Z", 10 + day)
            p.coordinate = lisbon
            return p
        }
        let holiday = EventSpan(id: "h", title: "Lisbon long weekend", startMs: Self.ms("2024-05-10T00:00:00Z"),
                                endMs: Self.ms("2024-05-13T00:00:00Z"), allDay: true)
        let birthday = EventSpan(id: "b", title: "Maya's birthday", startMs: Self.ms("2024-05-12T00:00:00Z"),
                                 endMs: Self.ms("2024-05-13T00:00:00Z"), allDay: true)
        let built = builder.build(from: trip, home: home, owning: Int64.min..<Int64.max, events: [holiday, birthday])
        #expect(built.first { $0.kind == .trip }?.title == "Lisbon long weekend")
        #expect(!built.contains { $0.title == "Maya's birthday" })

        let temporary = try TemporaryStore()
        let ids = ["long", "dinner", "birthday"]
        _ = try temporary.store.replaceEvents(uids: ["x"], with: [
            CalendarEvent(id: ids[0], uid: "x", summary: "Lisbon long weekend", startMs: holiday.startMs, endMs: holiday.endMs, allDay: true),
            CalendarEvent(id: ids[1], uid: "x", summary: "Maya's birthday dinner", startMs: Self.dinner.startMs, endMs: Self.dinner.endMs, allDay: false,
                          location: "Taberna", attendees: [EventAttendee(name: "Maya Lee", email: "maya@example.com")]),
            CalendarEvent(id: ids[2], uid: "x", summary: "Decade", startMs: Self.ms("2020-01-01T00:00:00Z"), endMs: Self.ms("2030-01-01T00:00:00Z"), allDay: true),
        ])
        let window = try temporary.store.eventSpans(overlapping: Self.ms("2024-05-11T00:00:00Z")..<Self.ms("2024-05-12T00:00:00Z"))
        #expect(window.map(\.id) == ["long"], "overlapping only, and no event longer than a month")
        #expect(try temporary.store.eventSpans(overlapping: Self.ms("2024-05-04T19:00:00Z")..<Self.ms("2024-05-04T19:00:01Z")).map(\.title)
            == ["Maya's birthday dinner"])
    }
}
