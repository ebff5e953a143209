import Foundation
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

@Suite("The byte audit: nothing the person did not approve reaches the app", .serialized)
struct AuditTests {
    @Test("approve one item: its canaries arrive, no other item's do; cancel and close release none")
    func audit() throws {
        let script = #"{"reviews": [{"title": "Canary day", "keep": ["reflection"], "set-title": "Audit"}, {"action": "cancel"}, {"action": "wait"}, {"title": "Canary day", "keep": ["song"]}]}"#
        let pickerd = try sessionPickerd(script: script)
        let planted = try runProduct("pickerd-store-writer", [pickerd.data, "canaries"])
        #expect(planted.status == 0, "\(planted.stderr)")
        let canaries = try #require(try JSONSerialization.jsonObject(with: Data(planted.stdout.utf8)) as? [String: [String]])
        #expect(canaries.count == 8)  // seven items and the title

        // Approve: only the reflection is kept, and the title is edited.
        let approved = try testClient(pickerd, "present")
        #expect(approved.last?["result"] as? String == "approved")
        let items = approved.last?["items"] as? [[String: String]] ?? []
        #expect(items.map { $0["kind"] } == ["reflection"])
        let keptID = try #require(items.first?["id"])
        let bytes = receivedBytes(approved)
        for canary in canaries[keptID] ?? [] {
            #expect(anyContains(bytes, canary), "the kept item's canary \(canary) must arrive (the audit can see)")
        }
        for (id, planted) in canaries where id != keptID {
            for canary in planted {
                #expect(!anyContains(bytes, canary), "\(canary) of an item the person did not keep reached the app")
            }
        }

        // Cancel and close: not one canary.
        let cancelled = try testClient(pickerd, "present")
        #expect(cancelled.last?["result"] as? String == "cancelled")
        let closed = try testClient(pickerd, "close")
        #expect(closed.last?["reason"] as? String == "clientClosed")
        let nothing = receivedBytes(cancelled) + receivedBytes(closed)
        for canary in canaries.values.flatMap({ $0 }) {
            #expect(!anyContains(nothing, canary), "\(canary) reached the app without an approval")
        }

        // Approve again without editing the title: the title is made from what was kept, so it names
        // no canary of the rest (the suggestion's own title is a canary, too).
        let untitled = try testClient(pickerd, "present")
        let song = try #require((untitled.last?["items"] as? [[String: String]])?.first?["id"])
        let songBytes = receivedBytes(untitled)
        for (id, planted) in canaries where id != song {
            for canary in planted {
                #expect(!anyContains(songBytes, canary), "\(canary) reached the app in an unedited approval")
            }
        }
        pickerd.stop()
    }

    @Test("with Significant Locations off, no byte the app receives says where the person was: no place, city, home, away or route")
    func locationsOff() throws {
        // A run with its place while locations are on (the audit can see), then, with them off, a run,
        // the trip (chosen by kind: its title is what is under test) and a week with its workouts.
        let script = #"{"reviews": [{"title": "Morning run in Riverside Park"}, {"title": "Morning run"}, {"kind": "trip"}, {"kind": "weeklySummary"}]}"#
        let pickerd = try sessionPickerd(script: script)
        let control = try testClient(pickerd, "present")
        let off = try pickerd.ctl(["settings", "set", "significant-locations", "off"])
        #expect(off.status == 0, "\(off.stderr)")
        let released = try ["run", "trip", "week"].map { name in (name, try testClient(pickerd, "present")) }
        let shown = pickerd.logText.split(separator: "\n").filter { $0.contains("review for") }.map(String.init)
        pickerd.stop()

        // Every place, city and coordinate the library holds, and every person's first name.
        let library = try Store(dataDirectory: pickerd.data).items()
        var words: Set<String> = ["away", "Away", "home", "Home", "trip", "Trip"]
        var people = Set<String>()
        var coordinates = Set<Double>()
        for item in library {
            switch item.asset {
            case .location(let l):
                words.formUnion([l.place, l.city])
                coordinates.formUnion([l.location?.latitude, l.location?.longitude].compactMap { $0 })
            case .locationGroup(let g):
                for l in g.locations {
                    words.formUnion([l.place, l.city])
                    coordinates.formUnion([l.location?.latitude, l.location?.longitude].compactMap { $0 })
                }
            case .workout(let w): coordinates.formUnion(w.route.flatMap { [$0.latitude, $0.longitude] })
            case .workoutGroup(let g): coordinates.formUnion(g.workouts.flatMap(\.route).flatMap { [$0.latitude, $0.longitude] })
            case .contact(let c): people.formUnion(c.name.split(separator: " ").prefix(1).map(String.init))
            default: break
            }
        }
        words.remove("")
        #expect(coordinates.count > 100, "the demo's routes and places")
        // Whether a coordinate is in the bytes as the wire carries it (protobuf `double`: 8 bytes, little-endian).
        func holds(_ bytes: [Data], _ value: Double) -> Bool {
            let needle = withUnsafeBytes(of: value.bitPattern.littleEndian) { Data($0) }
            return bytes.contains { $0.range(of: needle) != nil }
        }

        // The control: with locations on, the run's place and route arrive, so the audit can see them.
        let controlBytes = receivedBytes(control)
        let controlSuggestion = try #require(approvedSuggestion(control))
        #expect(controlSuggestion.title == "Morning run in Riverside Park")
        #expect(anyContains(controlBytes, "Riverside Park"))
        let route = controlSuggestion.items.compactMap { item -> [GeoLocation]? in
            if case .workout(let w)? = item.asset { return w.route }
            return nil
        }.flatMap { $0 }
        #expect(!route.isEmpty, "the route arrives when locations are on")
        #expect(route.allSatisfy { holds(controlBytes, $0.latitude) }, "the route arrives when locations are on")
        #expect(titleNamesOnlyKept(controlSuggestion, words: words, people: people).isEmpty)

        // Locations off: not a word of where the person was, not one coordinate.
        for (name, lines) in released {
            let suggestion = try #require(approvedSuggestion(lines), "\(name): \(lines.last ?? [:])")
            let bytes = receivedBytes(lines)
            for word in words.sorted() {
                #expect(!anyContains(bytes, word), "\(name): \"\(word)\" reached the app (titled \"\(suggestion.title)\")")
            }
            let leaked = coordinates.filter { holds(bytes, $0) }
            #expect(leaked.isEmpty, "\(name): \(leaked.count) coordinates reached the app")
            #expect(!suggestion.items.contains { $0.asset.map { AssetKind($0).category == .significantLocations } ?? false })
            for item in suggestion.items {
                switch item.asset {
                case .workout(let w)?: #expect(w.route.isEmpty, "\(name): a workout's route reached the app")
                case .workoutGroup(let g)?: #expect(g.workouts.allSatisfy { $0.route.isEmpty }, "\(name): a route in a workout group reached the app")
                default: break
                }
            }
            #expect(titleNamesOnlyKept(suggestion, words: words, people: people).isEmpty)
        }
        for (name, lines) in released {
            let kinds = Set(approvedSuggestion(lines)?.items.compactMap { $0.asset.map(AssetKind.init) } ?? [])
            #expect(!kinds.isDisjoint(with: [.workout, .workoutGroup]), "\(name) held no workout, so no route could have leaked: \(kinds)")
        }
        // Nor did the picker show a title that says where the person was.
        #expect(shown.count == 4)
        for line in shown.dropFirst() {
            let title = line.split(separator: "\"").dropFirst().first.map(String.init) ?? ""
            let named = words.filter { title.contains($0) }
            #expect(named.isEmpty, "the picker showed \"\(title)\" with locations off: \(named.sorted())")
        }
    }
}

/// The places, cities, people and whereabouts `suggestion`'s title names although none of its items'
/// own fields hold them: a released title may say only what the kept items say.
func titleNamesOnlyKept(_ suggestion: Suggestion, words: Set<String>, people: Set<String>) -> [String] {
    var said = ""
    for item in suggestion.items {
        switch item.asset {
        case .location(let l)?: said += " \(l.place) \(l.city) " + (l.place == "Home" ? "home Home" : "away Away trip Trip")
        case .locationGroup(let g)?: said += g.locations.map { " \($0.place) \($0.city) away Away trip Trip" }.joined()
        case .contact(let c)?: said += " \(c.name) "
        default: break
        }
    }
    return words.union(people).filter { suggestion.title.contains($0) && !said.contains($0) }.sorted()
}
