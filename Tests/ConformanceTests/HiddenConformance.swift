import Foundation
import PickerdTestKit
import Testing

extension ConformanceTests {
    @Test("19. no app-facing message reveals a hidden rule: after a hide, the same approval and configuration; the rules' requests are refused",
          arguments: Caller.allCases)
    func hiddenRules(caller: Caller) throws {
        let review = #"{"title": "Morning run", "keep": ["workout", "photo"]}"#
        let world = try World(script: #"{"reviews": [\#(review), \#(review), \#(review)]}"#)
        check(19, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            /// The shape of what an approval gives the app: its result, title, item kinds and how many
            /// files (ids are the release's own, and rotation may pick another morning's run).
            func approval(_ lines: [[String: Any]]) -> String {
                let outcome = lines.last ?? [:]
                let kinds = (outcome["items"] as? [[String: String]] ?? []).map { $0["kind"] ?? "" }
                return "\(outcome["result"] ?? "?") \(outcome["title"] ?? "") \(kinds) \((outcome["descriptors"] as? [Any])?.count ?? 0) files"
            }
            let configuration = { try world.run(caller, "configuration").lines.first?["raw"] as? String ?? "" }
            // Consent is given at the first presentation (the configuration says so): compared after it.
            _ = try world.run(caller, "present")
            let configurationBefore = try configuration()
            let before = approval(try world.run(caller, "present").lines)
            // The person hides a person, a place (the Strand Book Store) and days.
            for rule in [["--person", "Maya Okafor"], ["--place", "40.7332,-73.9907"], ["--from", "2026-01-01", "--to", "2026-01-02"]] {
                let added = try world.pickerd.ctl(["hidden", "add"] + rule)
                guard added.status == 0 else { return (false, "hidden add: \(added.stderr)") }
            }
            let lines = try world.run(caller, "present").lines
            let after = approval(lines)
            let configurationAfter = try configuration()
            let leaked = ["Maya", "Okafor", "Strand", "2026-01-01", "hidden"].filter { anyContains(receivedBytes(lines), $0) }
            let codes = try world.run(caller, "probe-hidden").lines.map { $0["code"] as? String ?? "answered" }
            let refused = codes.count == 7 && codes.allSatisfy { $0 == "wrongRole" }
            let rulesKept = try world.pickerd.ctl(["hidden", "list"]).stdout.split(separator: "\n").count == 3
            let ok = before.hasPrefix("approved") && after == before && configurationAfter == configurationBefore && !configurationBefore.isEmpty
                && leaked.isEmpty && refused && rulesKept
            return (ok, "approval after 3 rules as before (\(after)): \(after == before); configuration the same: \(configurationAfter == configurationBefore); "
                        + "rule words in what the app got: \(leaked); the rules' \(codes.count) messages from a client: \(Set(codes)); rules untouched: \(rulesKept)")
        }
    }
}

extension ConformanceTests {
    @Test("21. an app cannot name the person's places: Name this place and places name from a client are refused, nothing is stored",
          arguments: Caller.allCases)
    func namingPlaces(caller: Caller) throws {
        let world = try World(script: #"{"reviews": []}"#)
        check(21, caller) {
            if caller == .otherUID { return try refusedOtherUID(world, "probe-name-place") }
            let codes = try world.run(caller, "probe-name-place").lines.map { $0["code"] as? String ?? "answered" }
            let places = try world.pickerd.ctl(["places"])
            let refused = codes == ["wrongRole", "wrongRole"]
            let stored = places.stdout.contains("Probe Place")
            return (refused && !stored && places.status == 0,
                    "the two naming requests from a client: \(codes); the name among the person's places: \(stored)")
        }
    }
}
