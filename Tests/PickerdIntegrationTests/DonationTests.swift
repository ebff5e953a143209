import Foundation
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Donations through the client library (journal-demo's `donate` and `withdraw`, copies registered as
/// apps of their own), into a real pickerd with the demo library, and out again only through the
/// person's choice in the (scripted) picker.
@Suite("Donations: apps give media and moods; only the person's choice passes them on", .serialized)
struct DonationTests {
    static let donor = plist("<key>com.apple.developer.journal.allow</key><true/><key>org.pickerd.journal.donations</key><true/>")

    static func plist(_ body: String) -> String { Entitlements.plist(body) }

    /// A pickerd whose scripted picker follows `script`, the test client registered as
    /// `com.example.test`, and `donors` copies of journal-demo registered as `org.test.donor-N`
    /// ("Donor N") with `entitlements`.
    static func start(script: String, donors: Int = 1, entitlements: String = donor,
                      developerMode: Bool = true) throws -> (RunningPickerd, [String]) {
        let pickerd = try sessionPickerd(script: script, developerMode: developerMode)
        return (pickerd, try (0..<donors).map { try register(pickerd, "donor-\($0)", entitlements) })
    }

    /// A copy of journal-demo (the kernel knows an app by its executable file) registered as
    /// `org.test.<name>` with `entitlements`.
    static func register(_ pickerd: RunningPickerd, _ name: String, _ entitlements: String) throws -> String {
        let directory = pickerd.root + "/apps"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let copy = directory + "/" + name, file = directory + "/" + name + ".entitlements"
        try FileManager.default.copyItem(atPath: BuiltProducts.url("journal-demo").path, toPath: copy)
        try entitlements.write(toFile: file, atomically: true, encoding: .utf8)
        let number = name.split(separator: "-").last.map(String.init) ?? name
        let r = try pickerd.ctl(["apps", "register", "--executable", copy, "--entitlements", file, "--bundle-id", "org.test.\(name)",
                                 "--name", "Donor \(number)"])
        #expect(r.status == 0, "register \(name): \(r.stderr)")
        return copy
    }

    /// Runs a donor copy's `donate` or `withdraw`.
    static func run(_ app: String, _ pickerd: RunningPickerd, _ arguments: [String]) throws -> CommandResult {
        try runCommand(URL(fileURLWithPath: app), arguments + ["--runtime-dir", pickerd.runtime])
    }

    /// A real PNG made by ImageMagick whose comment (a tEXt chunk) carries `canary`.
    static func png(_ path: String, canary: String) throws {
        let made = try runCommand(URL(fileURLWithPath: "/usr/bin/convert"),
                                  ["-size", "12x8", "xc:#3366cc", "-set", "comment", canary, path])
        #expect(made.status == 0, "convert: \(made.stderr)")
    }

    /// Noon, `days` days ago: a time the demo library's evenings at home do not take.
    static func noon(daysAgo days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let day = calendar.date(byAdding: .day, value: -days, to: calendar.startOfDay(for: Date()))!
        return String(Int(day.timeIntervalSince1970) + 12 * 3600)
    }

    /// The ids of every item some stored suggestion holds.
    static func suggestedItems(_ pickerd: RunningPickerd) throws -> Set<UUID> {
        let store = try Store(dataDirectory: pickerd.data, integrityCheck: .inBackground)
        return Set(try store.suggestions().flatMap(\.itemIDs))
    }

    /// What the test's donors donated (the demo library has donations of its own).
    static func donations(_ pickerd: RunningPickerd) throws -> [LibraryItem] {
        try Store(dataDirectory: pickerd.data, integrityCheck: .inBackground).donations().filter { $0.donatingApp?.hasPrefix("org.test.") == true }
    }

    @Test("a donated book chapter with its artwork reaches another app only when the person keeps it; an excluded one is never suggested")
    func donatedReachesOthersOnlyByChoice() throws {
        let script = #"{"reviews": [{"title": "Canary Shelf"}, {"kind": "workout"}, {"title": "Hidden Shelf"}]}"#
        let (pickerd, apps) = try Self.start(script: script)
        let art = pickerd.root + "/cover.png", icon = pickerd.root + "/icon.png"
        try Self.png(art, canary: "ARTWORK-CANARY-7Q")
        try Self.png(icon, canary: "ICON-CANARY-3K")
        let when = Self.noon(daysAgo: 3)
        let shared = try Self.run(apps[0], pickerd, ["donate", "--id", "chapter-1", "--title", "TITLE-CANARY-9X", "--artist", "A. Canary",
                                                     "--album", "Canary Shelf", "--artwork", art, "--app-icon", icon, "--date", when])
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect(shared.stdout == "donated chapter-1\n")
        let hidden = try Self.run(apps[0], pickerd, ["donate", "--id", "secret", "--title", "EXCLUDED-CANARY-5M", "--album", "Hidden Shelf",
                                                     "--date", when, "--exclude"])
        #expect(hidden.status == 0, "\(hidden.stderr)")

        // The person sees both, the excluded one marked; the store holds copies, not the app's files.
        let list = try pickerd.ctl(["donations", "list"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("Donor 0 (org.test.donor-0)  genericMedia: TITLE-CANARY-9X (Canary Shelf)"), "\(list.stdout)")
        #expect(list.stdout.contains("EXCLUDED-CANARY-5M (Hidden Shelf)  [excluded from suggestions]"), "\(list.stdout)")
        let stored = try Self.donations(pickerd)
        let chapter = try #require(stored.first { $0.externalID == "chapter-1" })
        let secret = try #require(stored.first { $0.externalID == "secret" })
        #expect(chapter.media.count == 2)
        #expect(chapter.media.allSatisfy { !$0.isPersonsFile && $0.relativePath.hasPrefix("donations/") })
        #expect(chapter.media.map(\.contentType) == ["image/png", "image/png"])

        // The excluded donation is in no suggestion; the other one is.
        let suggested = try Self.suggestedItems(pickerd)
        #expect(suggested.contains(chapter.id))
        #expect(!suggested.contains(secret.id))

        // Kept: the title and both pictures arrive, as read-only copies.
        let kept = try testClient(pickerd, "present")
        #expect(kept.last?["result"] as? String == "approved")
        let items = try #require(approvedSuggestion(kept)).items
        guard case .genericMedia(let media)? = items.first(where: { $0.asset.map(AssetKind.init) == .genericMedia })?.asset else {
            Issue.record("no generic media in \(items)")
            return
        }
        #expect(media.title == "TITLE-CANARY-9X")
        #expect(media.album == "Canary Shelf")
        #expect(media.artwork?.hasFd == true)
        #expect(media.appIcon?.hasFd == true)
        let bytes = receivedBytes(kept)
        #expect(anyContains(bytes, "ARTWORK-CANARY-7Q"), "the kept pictures must arrive (the audit can see)")
        #expect(anyContains(bytes, "ICON-CANARY-3K"), "the kept pictures must arrive (the audit can see)")

        // Another suggestion chosen: not a byte of it. And the excluded one never, whatever the script asks for.
        let leftOut = try testClient(pickerd, "present")
        let excluded = try testClient(pickerd, "present")
        for canary in ["TITLE-CANARY-9X", "ARTWORK-CANARY-7Q", "ICON-CANARY-3K"] {
            #expect(!anyContains(receivedBytes(leftOut), canary), "\(canary) reached the app although the person left it out")
        }
        for canary in ["EXCLUDED-CANARY-5M", "Hidden Shelf"] {
            #expect(!anyContains(receivedBytes(kept + leftOut + excluded), canary), "the excluded donation's \(canary) reached an app")
        }
        #expect(!pickerd.logText.contains("TITLE-CANARY-9X"), "pickerd's log names no donated content")
        pickerd.stop()
    }

    @Test("a withdrawn donation leaves the store, its files and every suggestion, and is never released again; another app cannot withdraw it")
    func withdrawal() throws {
        let script = #"{"reviews": [{"title": "Withdrawn Shelf"}]}"#
        let (pickerd, apps) = try Self.start(script: script, donors: 2)
        let art = pickerd.root + "/cover.png"
        try Self.png(art, canary: "WITHDRAWN-ART-2P")
        let when = Self.noon(daysAgo: 4)
        for id in ["w-1", "w-2"] {
            let r = try Self.run(apps[0], pickerd, ["donate", "--id", id, "--title", "WITHDRAWN-\(id)", "--album", "Withdrawn Shelf",
                                                    "--artwork", art, "--date", when])
            #expect(r.status == 0, "\(r.stderr)")
        }
        // A second donation with the same identifier replaces the first (its old file goes).
        let before = try #require(try Self.donations(pickerd).first { $0.externalID == "w-1" })
        let again = try Self.run(apps[0], pickerd, ["donate", "--id", "w-1", "--title", "WITHDRAWN-w-1", "--album", "Withdrawn Shelf",
                                                    "--artwork", art, "--date", when])
        #expect(again.status == 0)
        let after = try #require(try Self.donations(pickerd).first { $0.externalID == "w-1" })
        let count = try Self.donations(pickerd).count
        #expect(after.id == before.id)
        #expect(count == 2)
        #expect(!FileManager.default.fileExists(atPath: pickerd.data + "/media/" + before.media[0].relativePath))
        #expect(FileManager.default.fileExists(atPath: pickerd.data + "/media/" + after.media[0].relativePath))

        // Another app names them: nothing of the first app's goes.
        let other = try Self.run(apps[1], pickerd, ["withdraw", "w-1", "w-2"])
        #expect(other.stdout == "withdrew 0\n", "\(other.stdout) \(other.stderr)")
        let otherAll = try Self.run(apps[1], pickerd, ["withdraw", "--all"])
        #expect(otherAll.stdout == "withdrew 0\n")
        #expect(try Self.donations(pickerd).count == 2)

        // Released once, then withdrawn: gone from the store, its file and the suggestions.
        let first = try testClient(pickerd, "present")
        #expect(anyContains(receivedBytes(first), "WITHDRAWN-ART-2P"))
        let withdrawn = try Self.run(apps[0], pickerd, ["withdraw", "--all"])
        #expect(withdrawn.stdout == "withdrew 2\n", "\(withdrawn.stderr)")
        #expect(try Self.donations(pickerd).isEmpty)
        let suggestedNow = try Self.suggestedItems(pickerd)
        #expect(!suggestedNow.contains(after.id))
        #expect(!FileManager.default.fileExists(atPath: pickerd.data + "/media/" + after.media[0].relativePath))
        let later = try testClient(pickerd, "present")
        for canary in ["WITHDRAWN-ART-2P", "WITHDRAWN-w-1", "WITHDRAWN-w-2", "Withdrawn Shelf"] {
            #expect(!anyContains(receivedBytes(later), canary), "\(canary) was released after its withdrawal")
        }
        pickerd.stop()
    }

    @Test("without the entitlement, before the person's allowance, or with a bad sample, a donation is refused with its reason and nothing is stored")
    func refusals() throws {
        let (pickerd, apps) = try Self.start(script: #"{"reviews": [{"action": "cancel"}]}"#,
                                             entitlements: Self.plist("<key>com.apple.developer.journal.allow</key><true/>"))
        let refused = try Self.run(apps[0], pickerd, ["donate", "--id", "x", "--title", "Nope"])
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("org.pickerd.journal.donations is absent"), "\(refused.stderr)")

        // The key set to false.
        let falseKey = Self.plist("<key>com.apple.developer.journal.allow</key><true/><key>org.pickerd.journal.donations</key><false/>")
        let no = try Self.run(try Self.register(pickerd, "false", falseKey), pickerd,
                              ["donate", "--id", "x", "--valence", "0.5"])
        #expect(no.status == 5, "\(no.stderr)")
        #expect(no.stderr.contains("is not true"), "\(no.stderr)")

        // An app that only donates (a media app that never presents) registers with the donations key alone.
        let donor = try Self.register(pickerd, "good", Self.plist("<key>org.pickerd.journal.donations</key><true/>"))
        let fine = try Self.run(donor, pickerd, ["donate", "--id", "ok", "--valence", "0.1"])
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(try Self.run(donor, pickerd, ["withdraw", "ok"]).stdout == "withdrew 1\n")

        // Entitled, but the samples are wrong: each refused with what is wrong.
        let text = pickerd.root + "/not-an-image.png"
        try "just text".write(toFile: text, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--valence", "3"], "valence is from -1 to 1"),
            (["--valence", "0.2", "--labels", "99"], "labels are HealthKit's"),
            (["--title", "A", "--artwork", text], "must be a PNG or a JPEG"),
            (["--title", "A", "--date", String(Int(Date().timeIntervalSince1970) + 10 * 86_400)], "more than a day in the future"),
        ]
        for (arguments, reason) in cases {
            let r = try Self.run(donor, pickerd, ["donate", "--id", "bad"] + arguments)
            #expect(r.status == 1, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(reason), "\(arguments): \(r.stderr)")
        }
        #expect(try Self.donations(pickerd).isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: pickerd.data + "/media/donations")) ?? []).isEmpty,
                "a refused donation leaves no file")
        #expect(try pickerd.ctl(["status"]).status == 0, "pickerd serves on")
        pickerd.stop()

        // A developer's build the person has not allowed yet may not donate either.
        let (strict, strictApps) = try Self.start(script: #"{"reviews": [{"action": "cancel"}]}"#, developerMode: false)
        let pending = try Self.run(strictApps[0], strict, ["donate", "--id", "x", "--valence", "0.5"])
        #expect(pending.status == 5, "\(pending.stderr)")
        #expect(pending.stderr.contains("not allowed yet"), "\(pending.stderr)")
        strict.stop()
    }

    @Test("the person lists and removes donations with pickerctl; a mood donated as a daily mood is suggested; Media off hides donated media")
    func personRemoves() throws {
        let script = #"{"reviews": [{"title": "Canary Shelf"}]}"#
        let (pickerd, apps) = try Self.start(script: script)
        let when = Self.noon(daysAgo: 5)
        #expect(try Self.run(apps[0], pickerd, ["donate", "--id", "m", "--title", "REMOVE-ME-4T", "--album", "Canary Shelf", "--date", when]).status == 0)
        #expect(try Self.run(apps[0], pickerd, ["donate", "--id", "mood", "--valence", "0.7", "--labels", "9,14", "--associations", "7",
                                                "--daily-mood", "--date", Self.noon(daysAgo: 6)]).status == 0)
        let stored = try Self.donations(pickerd)
        let mood = try #require(stored.first { $0.externalID == "mood" })
        guard case .stateOfMind(let s) = mood.asset, let state = s.state else {
            Issue.record("the mood is \(mood.asset)")
            return
        }
        #expect(state.kind == .dailyMood)
        #expect(state.valence == 0.7)
        #expect(state.valenceClassification == .pleasant)
        #expect(state.labels.map(\.rawValue) == [9, 14])
        #expect(state.associations.map(\.rawValue) == [7])
        #expect(s.lightBackground != nil)
        #expect(s.darkBackground != nil)
        #expect(try Self.suggestedItems(pickerd).contains(mood.id))

        // Media off: the donated chapter is not offered (the category settings apply to donations).
        #expect(try pickerd.ctl(["settings", "set", "media", "off"]).status == 0)
        let off = try testClient(pickerd, "present")
        #expect(!anyContains(receivedBytes(off), "REMOVE-ME-4T"))
        #expect(try pickerd.ctl(["settings", "set", "media", "on"]).status == 0)

        // Removed by its id: gone from the list and the suggestions; unknown and non-donated ids refused.
        let chapter = try #require(stored.first { $0.externalID == "m" })
        let wrong = try pickerd.ctl(["donations", "remove", UUID().uuidString])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("no donation"))
        let notDonated = try #require(try Store(dataDirectory: pickerd.data, integrityCheck: .inBackground).items().first { $0.donatingApp == nil })
        #expect(try pickerd.ctl(["donations", "remove", notDonated.id.uuidString]).status == 1, "only donations are removed this way")
        let removed = try pickerd.ctl(["donations", "remove", chapter.id.uuidString])
        #expect(removed.stdout == "removed 1 donation\n", "\(removed.stderr)")
        let suggestedAfter = try Self.suggestedItems(pickerd)
        #expect(!suggestedAfter.contains(chapter.id))
        let after = try testClient(pickerd, "present")
        #expect(!anyContains(receivedBytes(after), "REMOVE-ME-4T"))

        // Every donation of an app.
        let all = try pickerd.ctl(["donations", "remove", "--app", "org.test.donor-0"])
        #expect(all.stdout == "removed 1 donation\n")
        let list = try pickerd.ctl(["donations", "list", "--app", "org.test.donor-0"])
        #expect(list.stdout == "org.test.donor-0 has donated nothing\n")
        pickerd.stop()
    }

    @Test("removal removes: a removed donation's title and a cleared history are in no file of the data folder after stop, whose files are the person's alone under umask 022")
    func removalRemoves() throws {
        let previous = umask(0o022)  // pickerd started by hand with a permissive umask
        defer { umask(previous) }
        let (pickerd, apps) = try Self.start(script: #"{"reviews": [{"title": "Canary Shelf", "set-title": "HISTORY-CANARY-9Z"}]}"#)
        #expect(try Self.run(apps[0], pickerd, ["donate", "--id", "m", "--title", "GONE-TITLE-5K", "--album", "Canary Shelf",
                                                "--date", Self.noon(daysAgo: 5)]).status == 0)
        #expect(try testClient(pickerd, "present").last?["result"] as? String == "approved")
        #expect(try pickerd.ctl(["history"]).stdout.contains("HISTORY-CANARY-9Z"))
        let removed = try pickerd.ctl(["donations", "remove", "--app", "org.test.donor-0"])
        #expect(removed.stdout == "removed 1 donation\n", "\(removed.stderr)")
        let cleared = try pickerd.ctl(["history", "clear"])
        #expect(cleared.stdout == "deleted 1 release from the history\n", "\(cleared.stdout)\(cleared.stderr)")
        #expect(try pickerd.ctl(["history"]).stdout.contains("nothing has been released yet"))
        #expect(pickerd.stop() == 0)

        var seen: [String] = []
        let files = FileManager.default.enumerator(atPath: pickerd.data)?.compactMap { $0 as? String } ?? []
        for name in files {
            let path = pickerd.data + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let mode = info.st_mode & 0o777
            if info.st_mode & S_IFMT == S_IFDIR {
                #expect(mode == 0o700, "\(name) is \(String(mode, radix: 8))")
                continue
            }
            #expect(mode & 0o077 == 0, "\(name) is \(String(mode, radix: 8))")
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            for canary in ["GONE-TITLE-5K", "HISTORY-CANARY-9Z"] where data.range(of: Data(canary.utf8)) != nil { seen.append("\(canary) in \(name)") }
        }
        #expect(files.contains("pickerd.sqlite"))
        #expect(seen.isEmpty, "what was removed is still in the data folder: \(seen)")
        let manifests = (try? FileManager.default.contentsOfDirectory(atPath: pickerd.config + "/apps")) ?? []
        for name in manifests {
            var info = stat()
            #expect(stat(pickerd.config + "/apps/" + name, &info) == 0, "\(name): \(String(info.st_mode & 0o777, radix: 8))")
            #expect(info.st_mode & 0o077 == 0, "\(name): \(String(info.st_mode & 0o777, radix: 8))")
        }
    }
}
