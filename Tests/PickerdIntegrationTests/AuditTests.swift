import Foundation
import PickerdTestKit
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
}
