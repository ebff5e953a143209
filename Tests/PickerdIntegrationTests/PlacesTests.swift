import Foundation
import PickerdStore
import PickerdTestKit
import PickerdTransport
import PickerdWire
import Testing

/// `pickerctl places` through a real pickerd: six weeks of imported visits in Porto (a flat, a move
/// to another, an office, a café, a bar once) become two homes with their dates, work and a frequent
/// place.
@Suite("pickerctl places", .serialized)
struct PlacesTests {
    /// Six weeks from Monday 4 March 2024: nights in Casa da Ana for three weeks, then in Casa Nova;
    /// weekdays at Acme; after work at Café Majestic on the first week's weekdays; Bar Aduela once.
    static func makeTakeout(_ root: String) throws {
        let history = root + "/Takeout/Location History (Timeline)/Semantic Location History/2024"
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
        let monday = Date(timeIntervalSince1970: 1_709_510_400)  // 2024-03-04T00:00:00Z
        let iso = ISO8601DateFormatter()
        func at(_ day: Int, _ hour: Double) -> String { iso.string(from: monday.addingTimeInterval(Double(day) * 86_400 + hour * 3_600)) }
        var objects: [[String: Any]] = []
        for day in 0..<42 {
            let home = day < 21 ? ("Casa da Ana", 41.1579, -8.6291) : ("Casa Nova", 41.1450, -8.6100)
            objects.append(ImportTests.placeVisit(home.0, home.1, home.2, at(day, 18), at(day, 31.5)))
            if day % 7 < 5 {
                objects.append(ImportTests.placeVisit("Acme Lda", 41.1780, -8.5960, at(day, 8.5), at(day, 16.75)))
                if day < 7 { objects.append(ImportTests.placeVisit("Café Majestic", 41.1470, -8.6065, at(day, 17), at(day, 17.75))) }
            }
            if day == 5 { objects.append(ImportTests.placeVisit("Bar Aduela", 41.1601, -8.6291, at(day, 16), at(day, 17.5))) }
        }
        let data = try JSONSerialization.data(withJSONObject: ["timelineObjects": objects])
        try data.write(to: URL(fileURLWithPath: history + "/2024_MARCH.json"))
    }

    @Test("imported visits: pickerctl places names both homes with their dates, work and a frequent café, not a bar visited once")
    func knownPlaces() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["TZ": "Europe/Lisbon"])
        let empty = try pickerd.ctl(["places"])
        #expect(empty.status == 0, "\(empty.stdout) \(empty.stderr)")
        #expect(empty.stdout.hasPrefix("no known places yet"), "\(empty.stdout) \(empty.stderr)")
        try Self.makeTakeout(pickerd.root)
        let imported = try pickerd.ctl(["import", pickerd.root + "/Takeout"])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")

        let places = try pickerd.ctl(["places"])
        #expect(places.status == 0, "\(places.stderr)")
        let lines = places.stdout.split(separator: "\n").map(String.init)
        let rows = Self.rows(places.stdout)
        #expect(lines.first?.hasPrefix("#  ROLE") == true, "\(places.stdout)")
        #expect(rows.count == 4, "\(places.stdout)")
        #expect(rows.first == ["1", "home", "Casa da Ana", "Porto", "41.158° N, 8.629° W", "22", "until 2024-03-25", "found"], "\(places.stdout)")
        #expect(rows.dropFirst().first == ["2", "home", "Casa Nova", "Porto", "41.145° N, 8.610° W", "22", "since 2024-03-25", "found"], "\(places.stdout)")
        #expect(rows.dropFirst(2).first?.prefix(3) == ["3", "work", "Acme Lda"], "\(places.stdout)")
        #expect(rows.dropFirst(3).first?.prefix(3) == ["4", "frequent", "Café Majestic"], "\(places.stdout)")
        #expect(!places.stdout.contains("Bar Aduela"))
        #expect(pickerd.stop() == 0)
    }

    /// The table after a command's first line (what it did).
    static func table(_ output: String) -> String {
        String(output.split(separator: "\n", maxSplits: 1).last ?? "")
    }

    /// A table's rows, cells split where two spaces or more part them (the header left out).
    static func rows(_ table: String) -> [[String]] {
        table.split(separator: "\n").dropFirst().map { line in
            line.split(separator: "  ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// From Monday 4 March 2024 (Lisbon, UTC+0): nights in Casa da Ana, Porto, and weekdays at Acme,
    /// until Tuesday 19 March; from Wednesday 20 March the person lives in Casa Branca, Coimbra (110
    /// km away), too briefly for the nights to say they moved: Wednesday to Friday there (three photos
    /// on Thursday afternoon), the weekend in Porto (Casa da Ana, then Café Majestic on Sunday), and
    /// back in Coimbra on Sunday evening until Tuesday 26 March.
    static func makeMove(_ root: String) throws {
        let history = root + "/Takeout/Location History (Timeline)/Semantic Location History/2024"
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
        let monday = Date(timeIntervalSince1970: 1_709_510_400)  // 2024-03-04T00:00:00Z
        let iso = ISO8601DateFormatter()
        func at(_ day: Int, _ hour: Double) -> String { iso.string(from: monday.addingTimeInterval(Double(day) * 86_400 + hour * 3_600)) }
        let ana = ("Casa da Ana", 41.1579, -8.6291), branca = ("Casa Branca", 40.2033, -8.4103)
        func visit(_ place: (String, Double, Double), _ day: Int, _ from: Double, _ to: Double) -> [String: Any] {
            ImportTests.placeVisit(place.0, place.1, place.2, at(day, from), at(day, to))
        }
        var objects: [[String: Any]] = []
        for day in 0..<16 {
            objects.append(visit(ana, day, 18, 31.5))
            if day % 7 < 5 { objects.append(visit(("Acme Lda", 41.1780, -8.5960), day, 8.5, 16.75)) }
        }
        for day in 16...18 { objects.append(visit(branca, day, 10, 32)) }
        objects.append(visit(ana, 19, 10.5, 34))
        objects.append(visit(("Café Majestic", 41.1470, -8.6065), 20, 11, 16))
        objects += [visit(branca, 20, 18.5, 32), visit(branca, 21, 8, 32), visit(branca, 22, 8, 20)]
        let data = try JSONSerialization.data(withJSONObject: ["timelineObjects": objects])
        try data.write(to: URL(fileURLWithPath: history + "/2024_MARCH.json"))
        let photos = root + "/Pictures"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for (i, time) in ["15:00", "15:15", "15:30"].enumerated() {
            try MediaFixtures.jpeg(at: "\(photos)/IMG_010\(i).JPG", seed: i, exif: .init(
                dateTimeOriginal: "2024:03:21 \(time):00", offsetTimeOriginal: "+00:00", latitude: 40.2036, longitude: -8.4103,
                make: "Apple", model: "iPhone 13", exposureTime: 0.008))
        }
    }

    @Test("the person corrects home: days in Coimbra that were a trip become time at home, a weekend in Porto a trip from it; unset brings back what was found")
    func correctHome() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["TZ": "Europe/Lisbon"])
        try Self.makeMove(pickerd.root)
        #expect(try pickerd.ctl(["import", pickerd.root + "/Takeout"]).status == 0)
        let added = try pickerd.ctl(["sources", "add", pickerd.root + "/Pictures"])
        #expect(added.status == 0, "\(added.stdout)\(added.stderr)")
        let store = try Store(dataDirectory: pickerd.data)
        let photos = Set(try store.items().filter { $0.kind == .photo }.map(\.id))
        #expect(photos.count == 3)

        // What pickerd found: one home, Casa da Ana; Coimbra is away, its photos a trip's.
        let found = try pickerd.ctl(["places"])
        #expect(Self.rows(found.stdout).first?.prefix(3) == ["1", "home", "Casa da Ana"], "\(found.stdout)")
        #expect(!found.stdout.contains("yours"), "\(found.stdout)")
        let before = try store.suggestions()
        let coimbraTrip = try #require(before.first { $0.kind == .trip && photos.isSubset(of: $0.itemIDs) }, "\(before.map(\.title))")
        #expect(coimbraTrip.title.contains("Coimbra"), "\(coimbraTrip.title)")
        #expect(!before.contains { $0.kind == .timeAtHome })

        // Casa Branca is home from Wednesday 20 March (by its coordinates: it is no known place yet).
        let set = try pickerd.ctl(["places", "set-home", "40.2033,-8.4103", "--from", "2024-03-20", "--name", "Casa Branca"])
        #expect(set.status == 0, "\(set.stdout)\(set.stderr)")
        #expect(set.stdout.hasPrefix("home set: Casa Branca (40.2033,-8.4103) from 2024-03-20; moments of "), "\(set.stdout)")
        let listed = Self.rows(try pickerd.ctl(["places"]).stdout)
        #expect(listed.first == ["1", "home", "Casa da Ana", "Porto", "41.158° N, 8.629° W", "16", "until 2024-03-20", "found"], "\(listed)")
        #expect(listed.dropFirst().first?.prefix(3) == ["2", "home", "Casa Branca"] && listed.dropFirst().first?.suffix(2) == ["since 2024-03-20", "yours"],
                "\(listed)")
        let after = try store.suggestions()
        #expect(!after.contains { $0.kind == .trip && $0.title.contains("Coimbra") }, "\(after.map(\.title))")
        let home = try #require(after.first { $0.kind == .timeAtHome && photos.isSubset(of: $0.itemIDs) }, "\(after.map(\.title))")
        #expect(home.title == "Thursday afternoon at home", "\(home.title)")
        // The weekend in Porto, from leaving Casa Branca on Saturday to coming back on Sunday evening.
        let porto = try #require(after.first { $0.kind == .trip }, "\(after.map(\.title))")
        #expect(porto.title == "2 days in Porto", "\(porto.title)")
        #expect(porto.startMs == 1_709_510_400_000 + Int64(19 * 24 + 8) * 3_600_000 && porto.endMs == 1_709_510_400_000 + Int64(20 * 24) * 3_600_000 + 66_600_000,
                "from Saturday 08:00 to Sunday 18:30: \(porto.startMs)–\(porto.endMs)")

        // Picked by its number, the same place; then taken back: what pickerd found holds again.
        let unset = try pickerd.ctl(["places", "unset", "home"])
        #expect(unset.status == 0, "\(unset.stdout)\(unset.stderr)")
        #expect(unset.stdout.hasPrefix("home unset: pickerd's finding holds"), "\(unset.stdout)\(unset.stderr)")
        #expect(!unset.stdout.contains("yours"))
        let back = try store.suggestions()
        #expect(back.contains { $0.id == coimbraTrip.id && $0.itemIDs == coimbraTrip.itemIDs }, "the same trip is back: \(back.map(\.title))")
        #expect(!back.contains { $0.kind == .timeAtHome })
        let byNumber = try pickerd.ctl(["places", "set-work", "1"])
        #expect(byNumber.status == 0, "\(byNumber.stdout)\(byNumber.stderr)")
        #expect(byNumber.stdout.hasPrefix("work set: Casa da Ana (41.1579,-8.6291); "), "\(byNumber.stdout)\(byNumber.stderr)")
        #expect(Self.rows(byNumber.stdout).contains { $0.prefix(3) == ["2", "work", "Casa da Ana"] && $0.last == "yours" }, "\(byNumber.stdout)")
        let reset = try pickerd.ctl(["places", "reset"])
        #expect(reset.status == 0, "\(reset.stdout)\(reset.stderr)")
        #expect(!reset.stdout.contains("yours"), "\(reset.stdout)\(reset.stderr)")
        #expect(pickerd.stop() == 0)
    }

    @Test("what is refused, each with why: a place off the Earth, an unknown number or name, a day that is not, a role, unsetting what was never set; a stored correction that cannot be read")
    func refusals() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["TZ": "Europe/Lisbon"])
        let cases: [([String], Int32, String)] = [
            (["places", "set-home", "91,10"], 2, "91,10 is not a place on Earth"),
            (["places", "set-home", "3"], 2, "no places are listed yet"),
            (["places", "set-work", "Atlantis"], 2, "no known place is called Atlantis"),
            (["places", "set-home", "41.1,-8.6", "--from", "2024-02-30"], 1, "'2024-02-30' is not a date"),
            (["places", "unset", "home"], 1, "you have not set home"),
            (["places", "unset", "holiday"], 2, "unset home or work"),
        ]
        for (arguments, status, message) in cases {
            let result = try pickerd.ctl(arguments)
            #expect(result.status == status, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.status) \(result.stderr)")
        }
        // Typed errors from pickerd itself, for what pickerctl would never send.
        let client = try ProtocolClient(path: pickerd.runtime + "/control.sock", role: .control, software: "places test")
        for (body, expected) in [(Envelope.Body.placesSet(PlacesSetRequest(role: "holiday", latitude: 1, longitude: 1)), ErrorCode.invalidArgument),
                                 (.placesSet(PlacesSetRequest(role: "home", latitude: .nan, longitude: 1)), .invalidArgument),
                                 (.placesUnset(PlacesUnsetRequest(role: "work", fromDay: "2024-03-01")), .notFound)] {
            do {
                _ = try client.request(body)
                Issue.record("\(body) was answered")
            } catch let error as ProtocolClient.RemoteError {
                #expect(error.code == expected, "\(body): \(error)")
            }
        }
        #expect(pickerd.stop() == 0)
        // A correction this pickerd cannot read (a later version's, say) is named, and reset removes it.
        let sqlite = try runCommand(URL(fileURLWithPath: "/usr/bin/sqlite3"),
                                    [pickerd.data + "/pickerd.sqlite", "INSERT INTO place_correction (role, latitude, longitude, created_ms) VALUES ('cottage', 1, 2, 3)"])
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        let restarted = try RunningPickerd(seed: false, root: pickerd.root, environment: ["TZ": "Europe/Lisbon"])
        let corrupt = try restarted.ctl(["places"])
        #expect(corrupt.status == 1, "\(corrupt.status) \(corrupt.stderr)")
        #expect(corrupt.stderr.contains("place correction 1"), "\(corrupt.status) \(corrupt.stderr)")
        #expect(corrupt.stderr.contains("pickerctl places reset"), "\(corrupt.status) \(corrupt.stderr)")
        #expect(try restarted.ctl(["places", "reset"]).status == 0)
        #expect(try restarted.ctl(["places"]).stdout.hasPrefix("no known places yet"))
        #expect(restarted.stop() == 0)
    }

    /// The weeks a `places` command says it built again.
    static func weeksBuilt(_ stdout: String) -> Int {
        guard let range = stdout.range(of: "moments of ") else { return -1 }
        return Int(stdout[range.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    @Test("places name: by number, by LAT,LON (the known place within 150 m, else that spot), listed as the person's (a found place too); unname takes it back; refusals")
    func naming() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["TZ": "Europe/Lisbon"])
        try Self.makeTakeout(pickerd.root)
        #expect(try pickerd.ctl(["import", pickerd.root + "/Takeout"]).status == 0)
        let byNumber = try pickerd.ctl(["places", "name", "4", "Nonna's"])
        #expect(byNumber.status == 0, "\(byNumber.stdout)\(byNumber.stderr)")
        #expect(byNumber.stdout.hasPrefix("named Nonna's (41.1470,-8.6065); moments of "), "\(byNumber.stdout)")
        #expect(Self.rows(byNumber.stdout).contains { $0.prefix(3) == ["4", "frequent", "Nonna's"] && $0.last == "yours" },
                "found by pickerd, named by the person: the person's word: \(byNumber.stdout)")
        #expect(!byNumber.stdout.contains("Café Majestic"), "the person's name wins over the data's: \(byNumber.stdout)")
        // 60 m from Acme's visits: Acme, named.
        let near = try pickerd.ctl(["places", "name", "41.1785,-8.5960", "the Office"])
        #expect(near.status == 0, "\(near.stdout)\(near.stderr)")
        let rows = Self.rows(try pickerd.ctl(["places"]).stdout)
        #expect(rows.count == 4 && rows.contains { $0.prefix(3) == ["3", "work", "the Office"] }, "\(rows)")
        // Where no known place is: a place of its own, the person's; nothing of the library lies there,
        // so no moment is built again (a name touches the weeks of what lies near it, not the library).
        let spot = try pickerd.ctl(["places", "name", "41.1685,-8.6780", "the Tan track"])
        #expect(spot.status == 0, "\(spot.stdout)\(spot.stderr)")
        #expect(spot.stdout.hasPrefix("named the Tan track (41.1685,-8.6780); moments of 0 weeks built again"), "\(spot.stdout)")
        // The bar, visited once on day 5: the weeks of what lies within 600 m of it (the bar, the
        // first flat's nights nearby) and a week either side, not the library's every week.
        let bar = try pickerd.ctl(["places", "name", "41.1601,-8.6291", "Aduela"])
        let whole = Self.weeksBuilt(try pickerd.ctl(["places", "set-work", "3"]).stdout)
        #expect(whole >= 6 && (1..<whole).contains(Self.weeksBuilt(bar.stdout)), "\(bar.stdout); all \(whole)")
        #expect(Self.weeksBuilt(byNumber.stdout) <= whole, "the café: \(byNumber.stdout); all \(whole)")
        #expect(try pickerd.ctl(["places", "unname", "Aduela"]).status == 0)
        #expect(try pickerd.ctl(["places", "unset", "work"]).status == 0)
        let five = Self.rows(Self.table(spot.stdout))
        #expect(five.count == 5 && five.last?.prefix(3) == ["5", "named", "the Tan track"] && five.last?.last == "yours", "\(five)")
        // Renamed by its number, then taken back by its name.
        #expect(try pickerd.ctl(["places", "name", "5", "Tan"]).stdout.contains("named Tan"))
        let unname = try pickerd.ctl(["places", "unname", "Tan"])
        #expect(unname.status == 0 && unname.stdout.hasPrefix("name taken back at 41.1685,-8.6780"), "\(unname.stdout)\(unname.stderr)")
        #expect(Self.rows(Self.table(unname.stdout)).count == 4, "\(unname.stdout)")
        #expect(try pickerd.ctl(["places", "unname", "4"]).status == 0)
        #expect(Self.rows(try pickerd.ctl(["places"]).stdout).contains { $0.prefix(3) == ["4", "frequent", "Café Majestic"] && $0.last == "found" })
        let cases: [([String], Int32, String)] = [
            (["places", "name", "4", "  "], 2, "give the place a name"),
            (["places", "name", "9", "Nowhere"], 2, "no place 9 in pickerctl places"),
            (["places", "unname", "1"], 1, "you have not named a place at"),
            (["places", "name", "1", String(repeating: "x", count: 81)], 1, "at most 80 characters"),
        ]
        for (arguments, status, message) in cases {
            let result = try pickerd.ctl(arguments)
            #expect(result.status == status, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.status) \(result.stderr)")
        }
        // Reset takes back names too.
        #expect(try pickerd.ctl(["places", "reset"]).status == 0)
        let found = try pickerd.ctl(["places"]).stdout
        #expect(found.contains("Café Majestic") && found.contains("Acme Lda") && !found.contains("Nonna") && !found.contains("yours"), "\(found)")
        #expect(pickerd.stop() == 0)
    }

    @Test("a named place: every suggestion there says the name; an app sees it only inside the place item the person keeps")
    func nameReachesAppsOnlyInAKeptPlace() throws {
        let script = #"{"reviews": [{"title": "Tanbark Park", "keep": ["workout", "photo"]}, {"title": "Tanbark Park", "keep": ["workout", "location"]}]}"#
        let pickerd = try sessionPickerd(script: script, environment: ["TZ": "America/New_York"])
        let store = try Store(dataDirectory: pickerd.data)
        let before = try store.suggestions().filter { $0.title.contains("Riverside Park") }
        #expect(!before.isEmpty)
        let named = try pickerd.ctl(["places", "name", "40.8013,-73.9719", "Tanbark Park"])
        #expect(named.status == 0, "\(named.stdout)\(named.stderr)")
        let after = try store.suggestions()
        #expect(!after.contains { $0.title.contains("Riverside Park") }, "\(after.map(\.title))")
        for old in before {
            let now = try #require(after.first { $0.id == old.id } ?? after.first { $0.itemIDs == old.itemIDs }, "\(old.title)")
            #expect(now.title == old.title.replacingOccurrences(of: "Riverside Park", with: "Tanbark Park"), "\(old.title) → \(now.title)")
        }
        // The place left out: neither the title nor any item names it.
        let without = try testClient(pickerd, "present")
        #expect(without.last?["result"] as? String == "approved", "\(without)")
        let leftOut = try #require(approvedSuggestion(without))
        #expect(!"\(without)".contains("Tanbark") && !"\(leftOut)".contains("Tanbark"), "\(without)")
        #expect(!leftOut.items.contains { if case .location? = $0.asset { true } else { false } })
        // The place kept: it arrives named as the person named it, and the title may say so.
        let with = try testClient(pickerd, "present")
        let kept = try #require(approvedSuggestion(with))
        let places = kept.items.compactMap { item -> Location? in
            if case .location(let l)? = item.asset { return l }
            return nil
        }
        #expect(places.map(\.place) == ["Tanbark Park"], "\(places)")
        #expect(kept.title.contains("in Tanbark Park"), "\(kept.title)")
        pickerd.stop()
    }
}
