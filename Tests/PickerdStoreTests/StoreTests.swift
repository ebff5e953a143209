import Foundation
import Glibc
import GRDB
@testable import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

@Suite("The store", .serialized)
struct StoreTests {
    @Test("every asset type round-trips through the store with all its fields", arguments: AssetKind.allCases)
    func roundTrip(kind: AssetKind) throws {
        let temporary = try TemporaryStore()
        let item = try #require(FullItems.all.first { $0.kind == kind })
        try temporary.store.insert([item])
        // Through a fresh connection, from the file.
        let reopened = try Store(dataDirectory: temporary.store.dataDirectory)
        let back = try reopened.items()
        #expect(back == [item])
    }

    @Test("items are read by position from column lists that name every column of every item table, in the table's own names")
    func readColumnsCoverTheTables() throws {
        let temporary = try TemporaryStore()
        let schema = try temporary.store.schemaColumns()
        for (table, listed) in ItemCodec.columns {
            let columns = try #require(schema.columns[table], "\(table) is no table")
            #expect(Set(listed) == Set(columns), "\(table): read \(listed.sorted()), has \(columns.sorted())")
            #expect(listed.count == Set(listed).count, "\(table) lists a column twice")
            #expect(table == "item" || listed.first == "item_id", "\(table)'s rows are grouped by their first column")
        }
        // Every table that holds an item's asset or media is read with it (files, suggestions and people are not the item).
        #expect(schema.referringToItems.contains("song"))
        for table in schema.referringToItems.subtracting(["source_file", "suggestion_item", "item_person"]) {
            #expect(ItemCodec.columns[table] != nil, "\(table) refers to an item and is not read with it")
        }
    }

    @Test("all kinds together, replaced in place, and counted")
    func together() throws {
        let temporary = try TemporaryStore()
        try temporary.store.insert(FullItems.all)
        try temporary.store.insert(FullItems.all)  // same ids: replaced, not doubled
        #expect(try temporary.store.items() == FullItems.all.sorted { ($0.startMs, $0.id.uuidString) < ($1.startMs, $1.id.uuidString) })
        #expect(try temporary.store.itemCounts() == Dictionary(uniqueKeysWithValues: AssetKind.allCases.map { ($0, 1) }))
        #expect(try temporary.store.suggestionCount() == 0)
        try temporary.store.replaceSuggestions(FullItems.all.prefix(3).enumerated().map { index, item in
            StoredSuggestion(id: UUID(), title: "s\(index)", kind: .photos, startMs: item.startMs, endMs: item.startMs, score: 1, itemIDs: [item.id])
        })
        #expect(try temporary.store.suggestionCount() == 3)
        #expect(try temporary.store.suggestions().count == 3)
    }

    @Test("a bulk insert (an import's listens) counts its items and moves the library's version as the row triggers do, and leaves the triggers in place")
    func bulkInsertKeepsCountsAndVersion() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        func version() throws -> Int64 { try store.read("version") { db in try Int64.fetchOne(db, sql: "SELECT n FROM library_version") ?? -1 } }
        func triggers() throws -> [String] {
            try store.read("triggers") { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") }
        }
        let before = try triggers()
        #expect(before.contains("item_counted") && before.contains("item_inserted"))
        try store.insert(FullItems.all)  // one by one: under the bulk size
        let counted = try store.itemCounts(), start = try version()
        let listens = (0..<ItemCodec.bulkInsert + 500).map { n in
            LibraryItem(id: UUID(), asset: .song(Song(song: "Track \(n)", artist: "Artist", album: "", date: Timestamp(unixMs: 1_700_000_000_000))),
                        startMs: 1_700_000_000_000 + Int64(n) * 200_000, source: "import", externalID: "spotify")
        }
        let moods = (0..<ItemCodec.bulkInsert).map { n in
            LibraryItem(id: UUID(), asset: .stateOfMind(StateOfMind(state: StateOfMindSample(kind: .momentaryEmotion, valence: 0.5))),
                        startMs: 1_600_000_000_000 + Int64(n) * 60_000, source: "import", externalID: "daylio")
        }
        try store.insert(listens + moods)
        var expected = counted
        expected[.song, default: 0] += listens.count
        expected[.stateOfMind, default: 0] += moods.count
        #expect(try store.itemCounts() == expected)
        #expect(try version() == start + Int64(listens.count + moods.count))
        #expect(try triggers() == before, "the triggers are back, as they were")
        #expect(try store.items(listens.prefix(3).map(\.id)) == Array(listens.prefix(3)))
        // Replacing them all (the same ids) counts each once: the old rows' deletion is counted by its trigger.
        try store.insert(listens)
        #expect(try store.itemCounts() == expected)
        // The triggers count a single insert again.
        try store.insert([LibraryItem(id: UUID(), asset: .song(Song(song: "One more", artist: "Artist", album: "")), startMs: 1_700_000_000_000,
                                      source: "import", externalID: "spotify")])
        expected[.song, default: 0] += 1
        #expect(try store.itemCounts() == expected)
        #expect(try version() > start + Int64(listens.count * 2 + moods.count))
        // A bulk insert that fails half way (an id said to be new that is there) leaves nothing: no item, no count, the triggers in place.
        let counts = try store.itemCounts(), end = try version()
        let more = (0..<ItemCodec.bulkInsert).map { n in
            LibraryItem(id: UUID(), asset: .song(Song(song: "Later \(n)", artist: "Artist", album: "")), startMs: 1_750_000_000_000 + Int64(n) * 200_000,
                        source: "import", externalID: "spotify")
        }
        #expect(throws: StoreError.self) {
            try store.write("a bulk insert that fails") { db in try ItemCodec.insert(more + [listens[0]], db) { _ in true } }
        }
        #expect(try store.itemCounts() == counts)
        #expect(try version() == end)
        #expect(try triggers() == before)
        #expect(try store.items(more.prefix(1).map(\.id)).isEmpty)
    }

    @Test("a scan's or import's bulk of new listens is written many rows to a statement; podcasts, items with media, every field and a repeated id as one by one")
    func bulkApplyManyRowsAtOnce() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let full = FullItems.all  // every kind with every field, media included
        var items: [LibraryItem] = []
        for n in 0..<(ItemCodec.bulkInsert + ItemCodec.rowsAtOnce * 3 + 7) {
            let start = 1_700_000_000_000 + Int64(n) * 200_000
            let asset: Item.Asset = n % 5 == 0
                ? .podcast(Podcast(episode: "Episode \(n)", show: "Show", date: Timestamp(unixMs: start)))
                : .song(Song(song: "Track \(n)", artist: "Artist \(n % 7)", album: n % 2 == 0 ? "" : "Album", date: Timestamp(unixMs: start)))
            items.append(LibraryItem(id: UUID(), asset: asset, startMs: start, endMs: start + 180_000, source: "import", externalID: "spotify",
                                     utcOffsetSeconds: n % 3 == 0 ? 3_600 : nil))
            if n % 97 == 0 { items.append(full[(n / 97) % full.count]) }  // another kind, with media, between listens
        }
        // The same listen twice in one write: the later copy is the one kept.
        var again = items[10]
        again.asset = .song(Song(song: "Track 10", artist: "Artist 3", album: "Kept", date: Timestamp(unixMs: again.startMs)))
        items.append(again)
        var changes = SourceChanges()
        changes.items = items
        try store.apply(changes)
        var expected: [UUID: LibraryItem] = [:]
        for item in items { expected[item.id] = item }
        let back = try store.items(Array(expected.keys))
        #expect(back.count == expected.count)
        for item in back { #expect(item == expected[item.id], "\(item.id)") }
        let counted = try store.itemCounts(), wanted = Dictionary(grouping: expected.values, by: \.kind).mapValues(\.count)
        #expect(counted == wanted, "\(counted.sorted { $0.key.rawValue < $1.key.rawValue }) vs \(wanted.sorted { $0.key.rawValue < $1.key.rawValue })")
    }

    @Test("values bound straight through SQLite read back as written, one by one and many rows at once: empty text, NULL, composed and decomposed accents, emoji, quotes, extremes; text with a NUL stored as GRDB stores it")
    func rawBindingRoundTrip() throws {
        let temporary = try TemporaryStore()
        let names = ["", "Ä", "A\u{0308}", "Sigur Rós", "🎧 Lo-fi 🌧", "it's \"quoted\"; DROP TABLE item; --", String(repeating: "x", count: 5_000)]
        func listens(from first: Int) -> [LibraryItem] {
            (0..<(ItemCodec.bulkInsert + 3)).map { n in
                let name = names[n % names.count], start = Int64(first + n) * 60_000
                let asset: Item.Asset = n % 4 == 3 ? .podcast(Podcast(episode: name, show: names[(n + 1) % names.count]))
                    : .song(Song(song: name, artist: names[(n + 2) % names.count], album: names[(n + 3) % names.count],
                                 date: n % 2 == 0 ? nil : Timestamp(unixMs: start)))
                return LibraryItem(id: UUID(), asset: asset, startMs: n == 0 ? Int64.min : start, endMs: n == 1 ? Int64.max : start,
                                   excludedFromSuggestions: n % 5 == 0, source: name, externalID: names[(n + 4) % names.count],
                                   utcOffsetSeconds: n % 3 == 0 ? nil : Int32(n % 3 == 1 ? -43_200 : 50_400),
                                   coordinate: n % 2 == 0 ? nil : Coordinate(latitude: -90 + Double(n % 180), longitude: 179.999_999_9),
                                   notAMemory: n % 6 == 1 ? .screenshot : nil, filePlaceName: n % 2 == 0 ? nil : name, filePlaceCity: names[n % 3])
            }
        }
        let many = listens(from: 0), few = Array(listens(from: 100_000).prefix(5))  // a bulk, and one by one
        for batch in [many, few] {
            var changes = SourceChanges()
            changes.items = batch
            try temporary.store.apply(changes)
        }
        let back = Dictionary(uniqueKeysWithValues: try temporary.store.items((many + few).map(\.id)).map { ($0.id, $0) })
        #expect(back.count == many.count + few.count)
        for item in many + few { #expect(back[item.id] == item, "\(item.id)") }
        // Text is bound up to a NUL, as GRDB binds it: a query GRDB binds finds what was written.
        var nul = many.prefix(ItemCodec.bulkInsert).map { item in
            var copy = item
            copy.id = UUID()
            copy.asset = .song(Song(song: "a\u{0}b", artist: "c", album: ""))
            return copy
        }
        nul[0].startMs = 0
        var changes = SourceChanges()
        changes.items = nul
        try temporary.store.apply(changes)
        let found = try temporary.store.read("count") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM song WHERE song = ?", arguments: ["a\u{0}b"]) }
        #expect(found == nul.count)
        #expect(try temporary.store.items([nul[0].id]).first.map { item -> Bool in
            if case .song(let s) = item.asset { return s.song == "a" }
            return false
        } == true)
    }

    @Test("changed times are handed on joined where less than twelve hours apart, in order: the same days and weeks, a few ranges for a million listens")
    func joinedRanges() throws {
        let hour: Int64 = 3_600_000
        #expect(Store.joined([]) == [])
        #expect(Store.joined([15 * hour...16 * hour, 0...hour, hour / 2...2 * hour, 40 * hour...40 * hour, 25 * hour...26 * hour])
                == [0...2 * hour, 15 * hour...26 * hour, 40 * hour...40 * hour], "13 h apart: two; 9 h: one; 14 h: two")
        #expect(Store.joined([0...0, 12 * hour...12 * hour]) == [0...0, 12 * hour...12 * hour], "twelve hours apart: two")
        #expect(Store.joined([0...5 * hour, hour...2 * hour]) == [0...5 * hour], "one inside another")
        // A history's listens, one every four minutes for a year: one range. Written through apply, the same.
        let listens = (0..<3_000).map { n in
            LibraryItem(id: UUID(), asset: .song(Song(song: "Track \(n)", artist: "Artist", album: "")), startMs: Int64(n) * 240_000,
                        endMs: Int64(n) * 240_000 + 200_000, source: "import", externalID: "spotify")
        }
        #expect(Store.joined(listens.map { $0.startMs...$0.endMs }) == [0...(2_999 * 240_000 + 200_000)])
        let temporary = try TemporaryStore()
        var changes = SourceChanges()
        changes.items = listens
        #expect(try temporary.store.apply(changes) == [0...(2_999 * 240_000 + 200_000)])
    }

    @Test("the items the engine derives (stays from photos, the project's prompts) are not the person's: not counted, not their items, not home")
    func derivedItemsAreNotThePersons() throws {
        let temporary = try TemporaryStore()
        try temporary.store.insert(FullItems.all)
        let persons = try temporary.store.itemCounts()
        // A long stay the engine derived far from every place of the person's, and two prompts.
        let stay = LibraryItem(id: UUID(), asset: .location(Location(place: "Derived", city: "Elsewhere",
                                                                     location: GeoLocation(latitude: -33.87, longitude: 151.21))),
                               startMs: 1_000, endMs: 1_000 + 30 * 86_400_000, source: LibraryItem.photoStaySource)
        let prompts = (0..<2).map { n in
            LibraryItem(id: UUID(), asset: .reflection(Reflection(prompt: "Prompt \(n)")), startMs: 2_000 + Int64(n), source: LibraryItem.promptSource)
        }
        try temporary.store.insert([stay] + prompts)
        #expect(stay.isDerived && prompts.allSatisfy(\.isDerived) && !FullItems.all.contains(where: \.isDerived))
        #expect(try temporary.store.itemCounts() == persons, "status, stats and doctor count the person's items only")
        #expect(try temporary.store.personsItems().map(\.id).sorted { $0.uuidString < $1.uuidString }
                == FullItems.all.map(\.id).sorted { $0.uuidString < $1.uuidString })
        #expect(try temporary.store.items().count == FullItems.all.count + 3, "they are stored all the same")
        #expect(try temporary.store.homeBase().place != "Derived", "a derived stay is never home, however long")
        #expect(Store.personsItemsSQL("i") == "i.source NOT IN ('photos', 'prompts')")
        // Only derived items: the library is empty to the person (the demo may be seeded).
        let only = try TemporaryStore()
        try only.store.insert(prompts)
        #expect(try only.store.itemCounts().isEmpty)
    }

    @Test("a store file that is not SQLite is moved aside (kept), a new store opened, and the salvage names the file")
    func corruptFile() throws {
        let temporary = try TemporaryStore()
        let path = temporary.directory + "/broken"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: path + "/pickerd.sqlite"))
        let store = try Store(dataDirectory: path)
        let salvage = try #require(store.salvaged)
        #expect(salvage.problem.contains(path + "/pickerd.sqlite") && salvage.problem.contains("not a readable SQLite database"), "\(salvage.problem)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: salvage.damagedCopy)) == Data(repeating: 0x42, count: 8192))
        #expect(try store.itemCounts().isEmpty)
        #expect(Store.salvageReports(in: path) == [salvage])
    }

    @Test("a store whose pages were damaged fails its integrity check: salvaged, what was readable kept")
    func damagedPages() throws {
        let temporary = try TemporaryStore()
        let directory = temporary.directory + "/damaged"
        do {
            // Enough rows for several pages; closing the store folds the WAL into the main file.
            let store = try Store(dataDirectory: directory)
            for round in 0..<20 {
                try store.insert(FullItems.all.map { item in
                    var copy = item
                    copy.id = UUID(uuidString: String(format: "20000000-0000-4000-8000-%06d%06d", round, Int(item.startMs % 1000)))!
                    return copy
                })
            }
        }
        let path = directory + "/pickerd.sqlite"
        var bytes = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
        #expect(bytes.count > 8192)
        for i in 4096..<min(bytes.count, 16384) { bytes[i] = UInt8(truncatingIfNeeded: i &* 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        let store = try Store(dataDirectory: directory)
        let salvage = try #require(store.salvaged)
        #expect(salvage.problem.contains(path), "\(salvage.problem)")
        #expect(salvage.lostAnything)
        #expect(store.integrityProblem() == nil, "the new store is sound")
        #expect(FileManager.default.fileExists(atPath: salvage.damagedCopy))
    }

    @Test("a data directory that cannot be created is a clear error")
    func unusableDirectory() throws {
        let error = try #require(throws: StoreError.self) { try Store(dataDirectory: "/proc/pickerd-cannot-be-here") }
        #expect(error.code == .unreadable)
        #expect(error.message.contains("/proc/pickerd-cannot-be-here"))
    }

    @Test("the data and media directories are private (0700)")
    func privateDirectories() throws {
        let temporary = try TemporaryStore()
        for path in [temporary.store.dataDirectory, temporary.store.mediaDirectory] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(path) has mode \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test("killed with SIGKILL mid-write, the store reopens intact with every acknowledged batch")
    func killedWriter() throws {
        let temporary = try TemporaryStore()
        let writer = Process()
        writer.executableURL = BuiltProducts.url("pickerd-store-writer")
        writer.arguments = [temporary.store.dataDirectory]
        let output = Pipe()
        writer.standardOutput = output
        try writer.run()
        var acknowledged = -1
        var buffer = Data()
        // Read acknowledgements until a few batches are in, then kill it while it writes the next.
        while acknowledged < 8 {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            buffer += chunk
            let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines.dropLast() where line.hasPrefix("ack ") { acknowledged = Int(line.dropFirst(4)) ?? acknowledged }
        }
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        // Whatever it printed before dying was committed too.
        buffer += output.fileHandleForReading.readDataToEndOfFile()
        for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where line.hasPrefix("ack ") {
            acknowledged = max(acknowledged, Int(line.dropFirst(4)) ?? acknowledged)
        }
        #expect(writer.terminationReason == .uncaughtSignal)
        #expect(acknowledged >= 8)

        let reopened = try Store(dataDirectory: temporary.store.dataDirectory)  // runs quick_check
        let ids = Set(try reopened.items().map(\.id))
        for batch in 0...acknowledged {
            for index in 0..<50 {
                let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%06x%06x", batch, index))!
                #expect(ids.contains(id), "batch \(batch) item \(index) was acknowledged but is gone")
            }
        }
        // Batches are all or nothing.
        #expect(ids.count % 50 == 0)
    }
}


@Suite("UUID parsing by hand")
struct UUIDParsingTests {
    @Test("agrees with Foundation on 10,000 random UUIDs, either case, and refuses what is not one (stricter than Foundation, whose sscanf takes \"…3E6E-F\")")
    func agrees() {
        for _ in 0..<10_000 {
            let id = UUID()
            #expect(UUID.parsing(id.uuidString) == id)
            #expect(UUID.parsing(id.uuidString.lowercased()) == id)
            #expect(id.text == id.uuidString)
            #expect(id.withText { String(decoding: $0, as: UTF8.self) } == id.uuidString)
        }
        #expect(UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0xAB, 0xCD, 0xEF, 0xFF)).text == "00010203-0405-0607-0809-0A0BABCDEFFF")
        for bad in ["", "E621E1F8C36C495A93FC0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5", "E621E1F8-C36C-495A-93FC-0C247A3E6E5FF",
                    "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8-C36C-495A-93FC0-C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E-F"] {
            #expect(UUID.parsing(bad) == nil, "\(bad)")
        }
    }

    @Test("orderKey orders ids as their uuidString does, equal ones equal (a shared first half too)")
    func orderKey() {
        var ids = (0..<2_000).map { _ in UUID() }
        let shared = UUID().uuid
        ids += (0..<200).map { n in
            var bytes = shared
            bytes.15 = UInt8(n)
            bytes.9 = UInt8(n % 7)
            return UUID(uuid: bytes)
        }
        ids += ids.prefix(50)
        #expect(ids.sorted { $0.orderKey < $1.orderKey }.map(\.uuidString) == ids.map(\.uuidString).sorted())
        #expect(ids.allSatisfy { $0.orderKey == UUID(uuidString: $0.uuidString)!.orderKey })
    }
}
