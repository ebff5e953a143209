import Foundation
import Glibc
import PickerdTestKit
import Testing

@Suite("journal-demo through the JournalingSuggestions library", .serialized)
struct JournalDemoTests {
    func journalDemo(_ pickerd: RunningPickerd, register: String? = Entitlements.allowed) throws -> CommandResult {
        if let register {
            try register.write(toFile: pickerd.root + "/jd.plist", atomically: true, encoding: .utf8)
            let r = try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("journal-demo").path,
                                     "--entitlements", pickerd.root + "/jd.plist", "--name", "Journal Demo"])
            #expect(r.status == 0)
        }
        return try runProduct("journal-demo", ["new-entry", "--output", pickerd.root + "/journal", "--runtime-dir", pickerd.runtime])
    }

    @Test("an approved suggestion becomes an entry with exactly the kept items and their media beside it")
    func entry() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"title": "Morning run", "keep": ["workout", "photo"], "set-title": "Run day"}]}"#, register: false)
        let result = try journalDemo(pickerd)
        #expect(result.status == 0, "\(result.stderr)")
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasSuffix("-run-day.md"))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# Run day\n"))
        #expect(text.contains("## Workout: Outdoor Run"))
        #expect(text.contains("## Photo"))
        for absent in ["## Song", "## Place", "## Movement", "## A feeling"] { #expect(!text.contains(absent), "\(absent) was not kept") }
        let media = try FileManager.default.contentsOfDirectory(atPath: String(path.dropLast(3)) + "-media")
        #expect(media.count == 1)
        #expect(media.first?.hasSuffix(".png") == true)
        pickerd.stop()
    }

    @Test("cancelled, dismissed and not entitled each print one line and exit with their own code")
    func exitCodes() throws {
        let cancel = try sessionPickerd(script: #"{"reviews": [{"action": "cancel"}]}"#, register: false)
        let cancelled = try journalDemo(cancel)
        #expect(cancelled.status == 3)
        #expect(cancelled.stderr == "journal-demo: cancelled: nothing was added\n")
        cancel.stop()

        let gone = try sessionPickerd(script: #"{"reviews": [{"action": "exit"}]}"#, register: false)
        let dismissed = try journalDemo(gone)
        #expect(dismissed.status == 4)
        #expect(dismissed.stderr == "journal-demo: dismissed (pickerGone): nothing was added\n")
        gone.stop()

        let refuse = try sessionPickerd(script: #"{"reviews": [{}]}"#, register: false)
        let refused = try journalDemo(refuse, register: nil)  // unknown to pickerd: registering a refused plist is refused
        #expect(refused.status == 5)
        #expect(refused.stderr.hasPrefix("journal-demo: not entitled: "))
        #expect(refused.stderr.split(separator: "\n").count == 1)
        refuse.stop()
    }
}
