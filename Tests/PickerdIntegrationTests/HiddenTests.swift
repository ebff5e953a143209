import Foundation
import PickerdTestKit
import PickerdWire
import Testing

/// `pickerctl hidden` through a real pickerd and the scripted picker: what is hidden is gone from
/// the agent's lists, and comes back when the rule is removed.
@Suite("pickerctl hidden", .serialized)
struct HiddenTests {
    @Test("hide a person: the demo library's evening with Maya is in no list; remove the rule: it is back, the same suggestion")
    func hidePerson() throws {
        let step = #"{"title": "with Maya"}"#
        let pickerd = try sessionPickerd(script: #"{"reviews": [\#(Array(repeating: step, count: 5).joined(separator: ", "))]}"#)
        /// What the scripted picker chose in each review so far: title and suggestion id.
        func chosen() -> [(title: String, id: String)] {
            pickerd.logText.split(separator: "\n").compactMap { line -> (String, String)? in
                guard line.hasPrefix("picker-agent: review for Test App: \""), let close = line.range(of: "\" ("),
                      let end = line[close.upperBound...].firstIndex(of: ")") else { return nil }
                let title = line[line.index(line.startIndex, offsetBy: 36)..<close.lowerBound]
                return (String(title), String(line[close.upperBound..<end]))
            }
        }
        #expect(approvedSuggestion(try testClient(pickerd, "present")) != nil)
        let maya = try #require(chosen().last)
        #expect(maya.title.contains("with Maya"), "\(maya)")

        let empty = try pickerd.ctl(["hidden", "list"])
        #expect(empty.status == 0, "\(empty.stdout)\(empty.stderr)")
        #expect(empty.stdout == "nothing is hidden\n", "\(empty.stdout)\(empty.stderr)")
        let added = try pickerd.ctl(["hidden", "add", "--person", "Maya Okafor"])
        #expect(added.status == 0, "\(added.stdout)\(added.stderr)")
        #expect(added.stdout == "hidden: 1  person      Maya Okafor\n", "\(added.stdout)\(added.stderr)")
        #expect(try pickerd.ctl(["hidden", "list"]).stdout == "1  person      Maya Okafor\n")

        // No suggestion titled with her, in Recommended or in any page of Recent: the picker, finding
        // none, takes the first of Recommended, which is not about her.
        _ = try testClient(pickerd, "present")
        let hidden = try #require(chosen().last)
        #expect(chosen().count == 2, "\(chosen())")
        #expect(!hidden.title.contains("Maya"), "\(chosen())")
        #expect(hidden.id != maya.id, "\(chosen())")
        #expect(pickerd.logText.contains("fetched recent"), "the picker looked through all of Recent")

        let removed = try pickerd.ctl(["hidden", "remove", "1"])
        #expect(removed.status == 0, "\(removed.stdout)\(removed.stderr)")
        #expect(removed.stdout == "shown again: 1  person      Maya Okafor\n", "\(removed.stdout)\(removed.stderr)")
        _ = try testClient(pickerd, "present")
        #expect(chosen().last?.id == maya.id, "the same suggestion is back: \(chosen())")

        // One suggestion by its id: the picker no longer finds that one.
        let one = try pickerd.ctl(["hidden", "add", "--suggestion", maya.id])
        #expect(one.status == 0, "\(one.stdout)\(one.stderr)")
        #expect(one.stdout.contains("suggestion  \"\(maya.title)\" (\(maya.id))"), "\(one.stdout)\(one.stderr)")
        _ = try testClient(pickerd, "present")
        #expect(chosen().count == 4, "\(chosen())")
        #expect(chosen().last?.id != maya.id, "\(chosen())")
        #expect(pickerd.stop() == 0)
    }

    @Test("places by coordinate, days, and what is refused: an unknown number, a date that is not, two targets at once")
    func addAndRefuse() throws {
        let pickerd = try RunningPickerd(seed: true)
        let place = try pickerd.ctl(["hidden", "add", "--place", "40.8013,-73.9719"])
        #expect(place.status == 0, "\(place.stdout)\(place.stderr)")
        #expect(place.stdout == "hidden: 1  place       40.8013,-73.9719\n", "\(place.stdout)\(place.stderr)")
        let days = try pickerd.ctl(["hidden", "add", "--from", "2024-03-01", "--to", "2024-03-03"])
        #expect(days.status == 0, "\(days.stdout)\(days.stderr)")
        #expect(days.stdout == "hidden: 2  days        2024-03-01 to 2024-03-03\n", "\(days.stdout)\(days.stderr)")
        let again = try pickerd.ctl(["hidden", "add", "--from", "2024-03-01", "--to", "2024-03-03"])
        #expect(again.stdout == days.stdout, "the same rule is stored once")

        let unknown = try pickerd.ctl(["hidden", "remove", "99"])
        #expect(unknown.status == 1, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("no hidden rule 99"), "\(unknown.stderr)")
        let notADate = try pickerd.ctl(["hidden", "add", "--from", "2024-02-31"])
        #expect(notADate.status == 1, "\(notADate.stderr)")
        #expect(notADate.stderr.contains("YYYY-MM-DD"), "\(notADate.stderr)")
        let two = try pickerd.ctl(["hidden", "add", "--person", "Maya Okafor", "--from", "2024-03-01"])
        #expect(two.status == 2, "\(two.stderr)")
        let noPlace = try pickerd.ctl(["hidden", "add", "--place", "Atlantis"])
        #expect(noPlace.status == 2, "\(noPlace.stderr)")
        #expect(noPlace.stderr.contains("no known place is called Atlantis"), "\(noPlace.stderr)")
        #expect(try pickerd.ctl(["hidden", "list"]).stdout.split(separator: "\n").count == 2)
        #expect(pickerd.stop() == 0)
    }
}
