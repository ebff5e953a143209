// journal-demo: a small journaling app. Presents the journaling suggestions picker and writes a
// Markdown entry (title, date, a section per item, media copied next to it) with what the person
// approved, and nothing else.

import ArgumentParser
import Foundation
import JournalingSuggestions

@main
struct JournalDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal-demo",
        abstract: "A small journaling app built on the JournalingSuggestions library.",
        discussion: "Exit status: 0 entry written, 1 failed, 3 cancelled, 4 dismissed, 5 not entitled, 6 no picker or pickerd unreachable.",
        subcommands: [NewEntry.self, OpenURL.self, Configuration.self, Donate.self, Withdraw.self])

    /// journal-demo's JSNotificationURLFormat (register it with --notification-url-format).
    static let notificationURLFormat = "journaldemo://suggestion/{journaling-suggestion-id}"
}

struct NewEntry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "new-entry", abstract: "Pick a suggestion and write it as a journal entry.")

    @Option(help: "Where entries are written.") var output: String
    @Option(help: "Open the picker on this suggestion (a notification's suggestion id).") var token: String?
    @Option(help: "Open the picker on the suggestion a notification URL names (path or query form).") var url: String?
    @Option(help: "pickerd's runtime directory (default: $XDG_RUNTIME_DIR/pickerd).") var runtimeDir: String?
    @Option(help: "The window to show the desktop picker over (\"x11:0x3a00007\", or a Wayland exported handle \"wayland:…\").")
    var parentWindow: String?

    func run() async throws {
        var presentation: JournalingSuggestionPresentationToken?
        if let url {
            guard let parsed = URL(string: url),
                  let token = JournalingSuggestionPresentationToken(url: parsed, format: JournalDemo.notificationURLFormat)
                    ?? JournalingSuggestionPresentationToken(url: parsed) else {
                Self.exit("'\(url)' is not a journaling suggestion URL", 1)
            }
            presentation = token
        }
        if let token {
            guard let id = UUID(uuidString: token) else { Self.exit("'\(token)' is not a suggestion id", 1) }
            presentation = JournalingSuggestionPresentationToken(suggestionIdentifier: id)
        }
        let picker = JournalingSuggestionsPicker(buttonTitle: "Add to Journal Demo",
                                                 cacheDirectory: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("journal-demo-\(getpid())"),
                                                 runtimeDirectory: runtimeDir, parentWindow: parentWindow)
        defer { try? picker.removeCachedMedia() }
        let outcome: JournalingSuggestionsPicker.Outcome
        do {
            outcome = try await picker.present(token: presentation)
        } catch {
            switch error.code {
            case .notEntitled: Self.exit("not entitled: \(error.message)", 5)
            case .noPickerAvailable, .unreachable: Self.exit("no picker: \(error.message)", 6)
            default: Self.exit(error.message, 1)
            }
        }
        switch outcome {
        case .cancelled: Self.exit("cancelled: nothing was added", 3)
        case .dismissed(let reason): Self.exit("dismissed (\(reason)): nothing was added", 4)
        case .approved(let suggestion):
            let path = try await EntryWriter(directory: output).write(suggestion)
            print(path)
        }
    }

    static func exit(_ message: String, _ code: Int32) -> Never {
        FileHandle.standardError.write(Data("journal-demo: \(message)\n".utf8))
        Foundation.exit(code)
    }
}

/// What a tapped reminder runs: the picker opens on the suggestion the URL names, the person reviews,
/// and the entry is written.
struct OpenURL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "open-url", abstract: "Open a journaling reminder's URL.")
    @Argument(help: "The URL, in journal-demo's JSNotificationURLFormat (\(JournalDemo.notificationURLFormat)).") var url: String
    @Option(help: "Where entries are written (default: ~/Journal).") var output: String = NSHomeDirectory() + "/Journal"
    @Option(help: "pickerd's runtime directory (default: $XDG_RUNTIME_DIR/pickerd).") var runtimeDir: String?

    func run() async throws {
        let entry = try NewEntry.parse(["--output", output, "--url", url] + (runtimeDir.map { ["--runtime-dir", $0] } ?? []))
        try await entry.run()
    }
}

/// Prints the reminder configuration this app sees, and why it is off when it is.
struct Configuration: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the reminder schedule as this app sees it.")
    @Option(help: "pickerd's runtime directory (default: $XDG_RUNTIME_DIR/pickerd).") var runtimeDir: String?

    func run() async throws {
        do {
            let configuration = try await JournalingSuggestionsConfiguration.current(runtimeDirectory: runtimeDir)
            print("schedule: \(configuration.notificationSchedule)")
            if !configuration.offReasons.isEmpty { print("off because: " + configuration.offReasons.map { "\($0)" }.joined(separator: ", ")) }
        } catch {
            NewEntry.exit(error.message, 6)
        }
    }
}

/// Donates what the person read or how they felt, as a media or wellbeing app would (journal-demo
/// stands in for one): it needs `org.pickerd.journal.donations` in its entitlements.
struct Donate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Donate a media item (--title) or a mood (--valence) to journaling suggestions.",
        discussion: "Prints \"donated <id>\"; exit 5 when not entitled, 1 when refused.")
    @Option(help: "Your identifier for the donation (donating again with it replaces it).") var id: String
    @Option(help: "Media: the title.") var title: String?
    @Option(help: "Media: the artist or author.") var artist: String?
    @Option(help: "Media: the album, book or show.") var album: String?
    @Option(help: "Media: a PNG or JPEG of the cover.") var artwork: String?
    @Option(help: "Media: a PNG or JPEG of the app's icon.") var appIcon: String?
    @Option(help: "Mood: the valence, -1 (very unpleasant) to 1 (very pleasant).") var valence: Double?
    @Option(help: "Mood: HealthKit label raw values, comma-separated (e.g. 9,14 for happy and grateful).") var labels: String = ""
    @Option(help: "Mood: HealthKit association raw values, comma-separated.") var associations: String = ""
    @Flag(help: "Mood: how the whole day felt, not a moment.") var dailyMood = false
    @Option(help: "When, in seconds since 1970 (default: now).") var date: Double?
    @Flag(help: "Keep it out of every suggestion.") var exclude = false
    @Option(help: "pickerd's runtime directory (default: $XDG_RUNTIME_DIR/pickerd).") var runtimeDir: String?

    func validate() throws {
        guard (title == nil) != (valence == nil) else { throw ValidationError("give --title for media or --valence for a mood") }
    }

    func run() async throws {
        let donations = JournalingSuggestionsDonations(runtimeDirectory: runtimeDir)
        let when = date.map { Date(timeIntervalSince1970: $0) }
        do {
            if let valence {
                func numbers(_ text: String) -> [Int] { text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
                let state = JournalingSuggestion.StateOfMind.State(kind: dailyMood ? .dailyMood : .momentaryEmotion, valence: valence,
                                                                   labels: numbers(labels), associations: numbers(associations), date: when)
                try await donations.donate(state, identifier: id, excludedFromSuggestions: exclude)
            } else {
                let media = JournalingSuggestion.GenericMedia(title: title, artist: artist, album: album, date: when,
                                                              appIcon: appIcon.map { URL(fileURLWithPath: $0) },
                                                              artwork: artwork.map { URL(fileURLWithPath: $0) })
                try await donations.donate(media, identifier: id, excludedFromSuggestions: exclude)
            }
        } catch {
            NewEntry.exit(error.message, error.code == .notEntitled ? 5 : error.code == .unreachable ? 6 : 1)
        }
        print("donated \(id)")
    }
}

/// Withdraws journal-demo's donations.
struct Withdraw: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Withdraw donations by identifier, or all of them (--all).")
    @Argument(help: "Identifiers given when donating.") var ids: [String] = []
    @Flag(help: "Every donation this app made.") var all = false
    @Option(help: "pickerd's runtime directory (default: $XDG_RUNTIME_DIR/pickerd).") var runtimeDir: String?

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("give identifiers, or --all") }
    }

    func run() async throws {
        let donations = JournalingSuggestionsDonations(runtimeDirectory: runtimeDir)
        do {
            let count = all ? try await donations.withdrawAll() : try await donations.withdraw(identifiers: ids)
            print("withdrew \(count)")
        } catch {
            NewEntry.exit(error.message, error.code == .notEntitled ? 5 : 1)
        }
    }
}

/// Writes one suggestion as a Markdown entry with its media beside it.
struct EntryWriter {
    let directory: String

    func write(_ suggestion: JournalingSuggestion) async throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        let day = formatter.string(from: suggestion.date?.start ?? Date())
        let slug = suggestion.title.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
            .reduce(into: "") { if !($1 == "-" && $0.hasSuffix("-")) { $0.append($1) } }.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        let base = "\(day)-\(slug.isEmpty ? "entry" : String(slug.prefix(48)))"
        let mediaDirectory = directory + "/" + base + "-media"
        try FileManager.default.createDirectory(atPath: mediaDirectory, withIntermediateDirectories: true)

        func copy(_ url: URL?) -> String? {
            guard let url else { return nil }
            let name = url.lastPathComponent
            try? FileManager.default.removeItem(atPath: mediaDirectory + "/" + name)
            guard (try? FileManager.default.copyItem(atPath: url.path, toPath: mediaDirectory + "/" + name)) != nil else { return nil }
            return base + "-media/" + name
        }
        let full = DateFormatter()
        full.locale = Locale(identifier: "en_US_POSIX")
        full.dateFormat = "EEEE d MMMM yyyy, HH:mm"
        func when(_ date: Date?) -> String { date.map { " · " + full.string(from: $0) } ?? "" }

        // Times as they were lived where the moment happened: each item's own time zone when pickerd
        // sent one (only with a place the person kept), the span in its first item's, else ours.
        full.timeZone = suggestion.items.lazy.compactMap(\.timeZone).first ?? .current
        var md = "# \(suggestion.title)\n\n"
        if let date = suggestion.date { md += "_\(full.string(from: date.start)) – \(full.string(from: date.end))_\n\n" }
        for item in suggestion.items {
            full.timeZone = item.timeZone ?? .current
            if let p = try await item.content(forType: JournalingSuggestion.Photo.self) {
                md += "## Photo\(when(p.date))\n\n" + (copy(p.photo).map { "![photo](\($0))\n\n" } ?? "")
            } else if let p = try await item.content(forType: JournalingSuggestion.LivePhoto.self) {
                md += "## Live Photo\(when(p.date))\n\n" + (copy(p.image).map { "![Live Photo](\($0))\n\n" } ?? "")
                md += copy(p.video).map { "[the moving part](\($0))\n\n" } ?? ""
            } else if let v = try await item.content(forType: JournalingSuggestion.Video.self) {
                md += "## Video\(when(v.date))\n\n" + (copy(v.url).map { "[video](\($0))\n\n" } ?? "")
            } else if let w = try await item.content(forType: JournalingSuggestion.Workout.self) {
                md += "## Workout: \(w.details?.localizedName ?? "activity")\n\n"
                if let d = w.details {
                    if let distance = d.distance { md += "- Distance: \(Self.number(distance.value)) \(distance.unit)\n" }
                    if let energy = d.activeEnergyBurned { md += "- Active energy: \(Self.number(energy.value)) \(energy.unit)\n" }
                    if let hr = d.averageHeartRate { md += "- Average heart rate: \(Self.number(hr.value)) \(hr.unit)\n" }
                    if let date = d.date { md += "- \(full.string(from: date.start)), \(Int(date.duration / 60)) minutes\n" }
                }
                if let route = w.route { md += "- Route: \(route.count) points\n" }
                md += "\n"
            } else if let g = try await item.content(forType: JournalingSuggestion.WorkoutGroup.self) {
                md += "## Workouts: \(g.workouts.count)\n\n"
                for w in g.workouts { md += "- \(w.details?.localizedName ?? "workout")\(when(w.details?.date?.start))\n" }
                md += "\n"
            } else if let c = try await item.content(forType: JournalingSuggestion.Contact.self) {
                md += "## With \(c.name)\n\n" + (copy(c.photo).map { "![\(c.name)](\($0))\n\n" } ?? "")
            } else if let l = try await item.content(forType: JournalingSuggestion.Location.self) {
                md += "## Place: \([l.place, l.city].compactMap { $0 }.joined(separator: ", "))\(when(l.date))\n\n"
                if let g = l.location { md += "- \(g.latitude), \(g.longitude)\n\n" }
            } else if let g = try await item.content(forType: JournalingSuggestion.LocationGroup.self) {
                md += "## Places\n\n" + g.locations.map { "- \([$0.place, $0.city].compactMap { $0 }.joined(separator: ", "))\n" }.joined() + "\n"
            } else if let s = try await item.content(forType: JournalingSuggestion.Song.self) {
                md += "## Song: \(s.song ?? "") by \(s.artist ?? "")\(when(s.date))\n\n_\(s.album ?? "")_\n\n"
            } else if let p = try await item.content(forType: JournalingSuggestion.Podcast.self) {
                md += "## Podcast: \(p.show ?? "") — \(p.episode ?? "")\(when(p.date))\n\n"
            } else if let m = try await item.content(forType: JournalingSuggestion.MotionActivity.self) {
                md += "## Movement\n\n- \(m.steps) steps, \(m.movementType)\n\n"
            } else if let g = try await item.content(forType: JournalingSuggestion.GenericMedia.self) {
                md += "## \(g.title ?? "Media")\n\n_\([g.artist, g.album].compactMap { $0 }.joined(separator: ", "))_\n\n"
            } else if let r = try await item.content(forType: JournalingSuggestion.Reflection.self) {
                md += "## Reflection\n\n> \(r.prompt)\n\n"
            } else if let s = try await item.content(forType: JournalingSuggestion.StateOfMind.self), let state = s.state {
                md += "## \(state.kind == .dailyMood ? "Mood of the day" : "A feeling")\(when(state.date))\n\n- Valence: \(state.valence)\n\n"
            }
        }
        let path = directory + "/" + base + ".md"
        try md.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
