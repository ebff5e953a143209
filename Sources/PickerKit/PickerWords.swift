import Foundation
import Synchronization
import Glibc
public import PickerdWire
public import SystemPackage

/// The words every picker uses, so the terminal and the window say the same: how each kind of item
/// is marked and named, the dates, and the texts of the consent, approval and privacy pages.
public enum PickerWords {
    /// Why the person is asked, by how pickerd knows the app.
    public static func approvalText(app: String, kind: AppKind) -> String {
        switch kind {
        case .developer:
            "A program registered \(app) with pickerd (pickerctl apps register). Allow it only if you built it yourself or know where it came from."
        case .flatpak:
            "\(app) is a Flatpak app that the system has not allowed to show journaling suggestions."
        case .system:
            "\(app) was installed by the system, and you took back its permission to show journaling suggestions."
        default:
            "\(app) is not one the system allowed to show journaling suggestions."
        }
    }

    /// How the picker marks and names each kind of item: a glyph, the carousel's label, and the noun
    /// it is counted in ("2 photos").
    private static let kinds: [AssetKind: (glyph: String, label: String, noun: String)] = [
        .photo: ("▣", "Photo", "photo"), .livePhoto: ("◎", "Live Photo", "live photo"), .video: ("▶", "Video", "video"),
        .workout: ("⚑", "Workout", "workout"), .workoutGroup: ("⚑", "Workouts", "workout group"),
        .contact: ("☺", "Contact", "contact"), .location: ("◉", "Place", "place"), .locationGroup: ("◉", "Places", "place group"),
        .song: ("♪", "Song", "song"), .podcast: ("☊", "Podcast", "podcast"), .motionActivity: ("↟", "Steps", "step count"),
        .genericMedia: ("♫", "Media", "media item"), .reflection: ("✎", "Reflection prompt", "prompt"),
        .stateOfMind: ("☼", "State of mind", "mood"),
    ]

    /// The item's kind, or `nil` for an item of a kind this picker does not know.
    public static func kind(_ item: Item) -> AssetKind? { item.asset.map(AssetKind.init) }

    /// "Live Photo": the kind as the carousel names it.
    public static func kindLabel(_ item: Item) -> String { kind(item).flatMap { kinds[$0]?.label } ?? "Item" }

    /// The kind's mark ("▣" for a photo).
    public static func glyph(_ item: Item) -> String { kind(item).flatMap { kinds[$0]?.glyph } ?? "•" }

    /// "▣ 2 photos  ♪ 1 song": what a suggestion holds.
    public static func contents(_ items: [Item]) -> String {
        var order: [AssetKind?] = []
        var counts: [AssetKind?: Int] = [:]
        for item in items {
            let kind = kind(item)
            if counts[kind] == nil { order.append(kind) }
            counts[kind, default: 0] += 1
        }
        return order.map { kind in
            let count = counts[kind]!
            let marks = kind.flatMap { kinds[$0] } ?? (glyph: "•", label: "Item", noun: "item")
            return "\(marks.glyph) \(count) \(marks.noun)\(count == 1 ? "" : "s")"
        }.joined(separator: "  ")
    }

    /// The item's picture, when it has one: a photo, a Live Photo's still, a contact's photo, artwork, a video.
    public static func imageMedia(_ item: Item) -> Media? {
        switch item.asset {
        case .photo(let p)?: return p.photo
        case .livePhoto(let p)?: return p.image
        case .contact(let c)?: return c.photo
        case .song(let s)?: return s.artwork
        case .podcast(let p)?: return p.artwork
        case .video(let v)?: return v.url
        default: return nil
        }
    }

    /// What the carousel says about an item.
    /// - Parameters:
    ///   - item: the item.
    ///   - utcOffsetSeconds: its suggestion's local time where it happened (`localUtcOffsetS`), or `nil`.
    public static func details(_ item: Item, utcOffsetSeconds: Int64? = nil) -> [String] {
        func date(_ t: Timestamp?) -> String { Self.date(t, utcOffsetSeconds: utcOffsetSeconds) }
        func range(_ d: PickerdWire.DateInterval?) -> String { Self.range(d, utcOffsetSeconds: utcOffsetSeconds) }
        var lines = [item.asset?.summary ?? ""]
        switch item.asset {
        case .photo(let p)?: lines.append(date(p.date))
        case .livePhoto(let p)?: lines.append(date(p.date))
        case .video(let v)?: lines.append(date(v.date))
        case .workout(let w)?:
            if let d = w.details {
                lines.append(range(d.date))
                if let e = d.activeEnergyBurned { lines.append(String(format: "%.0f %@ active", e.value, e.unit)) }
                if let h = d.averageHeartRate { lines.append(String(format: "average heart rate %.0f %@", h.value, h.unit)) }
            }
        case .location(let l)?: lines.append(date(l.date))
        case .song(let s)?:
            lines.append("album \(s.album)")
            lines.append(date(s.date))
        case .podcast(let p)?: lines.append(date(p.date))
        case .motionActivity(let m)?: lines.append(range(m.date))
        case .genericMedia(let g)?: lines.append(date(g.date))
        case .stateOfMind(let s)?:
            if let state = s.state {
                lines.append("feeling: " + state.labels.map { "\($0)" }.joined(separator: ", "))
                lines.append(date(state.date))
            }
        default: break
        }
        return lines.filter { !$0.isEmpty }
    }

    /// A category as the consent sheet names it.
    public static func categoryLabel(_ category: PickerdWire.Category) -> String {
        switch category {
        case .activity: "Activity (workouts, steps)"
        case .media: "Media (music, podcasts)"
        case .contacts: "Contacts"
        case .photos: "Photos and videos"
        case .significantLocations: "Significant locations"
        case .reflectionPrompts: "Reflection prompts"
        case .stateOfMind: "State of mind"
        default: "\(category)"
        }
    }

    private static let dayFormat: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "EEE d MMM, HH:mm"
        return f
    }()

    /// "Sat 14 Jun, 09:30", or "" for no date.
    /// - Parameters:
    ///   - timestamp: the instant.
    ///   - utcOffsetSeconds: the local time's offset where it happened (a suggestion's
    ///     `localUtcOffsetS`), or `nil` for the picker's own time zone.
    public static func date(_ timestamp: Timestamp?, utcOffsetSeconds: Int64? = nil) -> String {
        guard let timestamp, timestamp.unixMs != 0 else { return "" }
        let when = Date(unixMs: timestamp.unixMs)
        guard let zone = elsewhere(utcOffsetSeconds, at: when) else { return dayFormat.string(from: when) }
        return dayFormat(in: zone).string(from: when)
    }

    /// `dayFormat` in other zones, made once per zone: a DateFormatter is slow to make (ICU compiles
    /// its pattern), and a list of suggestions from abroad made two for each row (at 100k, about half
    /// of the 13 ms the desktop picker took to build the lists).
    private static let zonedDayFormats = Mutex<[Int: DateFormatter]>([:])

    private static func dayFormat(in zone: TimeZone) -> DateFormatter {
        zonedDayFormats.withLock { formats in
            if let made = formats[zone.secondsFromGMT()] { return made }
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.dateFormat = dayFormat.dateFormat
            f.timeZone = zone
            formats[zone.secondsFromGMT()] = f
            return f
        }
    }

    /// A date interval, with the day said once when it starts and ends on the same day; in the
    /// local time where it happened when that is not the picker's, marked so ("Sat 23 May,
    /// 09:00–17:30 local time (UTC+9)").
    /// - Parameters:
    ///   - interval: the interval.
    ///   - utcOffsetSeconds: the local time's offset where it happened, or `nil`.
    public static func range(_ interval: PickerdWire.DateInterval?, utcOffsetSeconds: Int64? = nil) -> String {
        guard let interval else { return "" }
        let start = date(Timestamp(unixMs: interval.startUnixMs), utcOffsetSeconds: utcOffsetSeconds)
        let end = date(Timestamp(unixMs: interval.endUnixMs), utcOffsetSeconds: utcOffsetSeconds)
        let text = start == end ? start : start.prefix(10) == end.prefix(10) ? "\(start)–\(end.suffix(5))" : "\(start) – \(end)"
        guard !text.isEmpty, elsewhere(utcOffsetSeconds, at: Date(unixMs: interval.startUnixMs)) != nil, let offset = utcOffsetSeconds else { return text }
        return "\(text) local time (\(offsetName(offset)))"
    }

    /// A suggestion's date range as the pickers show it: in the local time where it happened.
    public static func range(of suggestion: Suggestion) -> String {
        range(suggestion.date, utcOffsetSeconds: suggestion.localUtcOffsetS)
    }

    /// The zone of `offset` when it differs from the picker's own at `when`, else `nil`.
    private static func elsewhere(_ offset: Int64?, at when: Date) -> TimeZone? {
        guard let offset, abs(offset) <= 18 * 3_600, offset != Int64(TimeZone.current.secondsFromGMT(for: when)) else { return nil }
        return TimeZone(secondsFromGMT: Int(offset))
    }

    /// "UTC+9", "UTC−3:30", "UTC".
    static func offsetName(_ offset: Int64) -> String {
        guard offset != 0 else { return "UTC" }
        let minutes = abs(offset) / 60
        let sign = offset < 0 ? "−" : "+"
        return minutes % 60 == 0 ? "UTC\(sign)\(minutes / 60)" : String(format: "UTC%@%d:%02d", sign, minutes / 60, minutes % 60)
    }

    /// `text` in lines of at most `width` characters, broken between words.
    public static func wrap(_ text: String, _ width: Int) -> [String] {
        guard width > 4 else { return [text] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// As ``wrap(_:_:)``, with a word longer than a line (a path) broken across lines rather than cut off.
    public static func wrapBreakingWords(_ text: String, _ width: Int) -> [String] {
        guard width > 4 else { return [text] }
        let words = text.split(separator: " ").flatMap { word -> [Substring] in
            var rest = word
            var parts: [Substring] = []
            while rest.count > width {
                parts.append(rest.prefix(width))
                rest = rest.dropFirst(width)
            }
            return parts + [rest]
        }
        return wrap(words.joined(separator: " "), width)
    }

    /// The whole of a sealed media copy pickerd sent (at most 64 MiB).
    public static func readAll(_ fd: FileDescriptor) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset = 0
        while bytes.count < 64 << 20 {
            let n = buffer.withUnsafeMutableBytes { pread(fd.rawValue, $0.baseAddress, $0.count, offset) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
            offset += n
        }
        return bytes
    }

    /// What every picker shows when pickerd holds no suggestions at all (``ReviewRequest/libraryEmpty``),
    /// and what pickerd logs and `pickerctl doctor` prints then: one sentence, the same everywhere
    /// (``ReviewRequest/emptyLibrarySentence``, which pickerd reads without linking PickerKit).
    public static let emptyLibrary = ReviewRequest.emptyLibrarySentence

    /// What a picker shows when there are suggestions but the categories the person turned off hide
    /// every one of them.
    public static let everySuggestionHidden =
        "No suggestions with the categories that are on: turn more on with `pickerctl settings set CATEGORY on` (`pickerctl settings get` lists them)."

    /// "About Journaling Suggestions", from the consent sheet.
    public static let aboutText = """
        Journaling Suggestions groups what happened in your days (photos, workouts, places you went, music, the people you were with, and how you felt) into moments you might want to write about.

        Suggestions are made on this device by pickerd, which keeps your data to itself. When an app asks, this picker, not the app, shows you the suggestions. The app receives only the items you add, after you review them.

        You can turn categories off at any time with pickerctl settings.
        """

    /// Where a picker shows itself, for the privacy text.
    public enum Surface: Sendable {
        /// On the terminal the app handed over.
        case terminal
        /// In a window of its own on the person's display.
        case window
    }

    /// Where the names of places come from, credited as GeoNames' licence (CC BY 4.0) asks: the last
    /// line of ``privacyText(app:on:)``, so both pickers show it.
    public static let placeNamesCredit = "Place names come from GeoNames (geonames.org), under CC BY 4.0."

    /// "Your privacy": what the banner's learn-more shows.
    public static func privacyText(app: String, on surface: Surface = .terminal) -> String {
        let drawn = surface == .terminal ? "draws on your terminal itself" : "shows you this window itself"
        return """
        \(app) cannot see your suggestions. This picker runs in a separate process started by pickerd, and \(drawn): \(app) only waits for the answer.

        When you choose a suggestion, you review each item and can leave any out or change the title. \(app) receives only what you keep, when you press Add. If you cancel, \(app) receives nothing.

        Photos are sent without their location unless you keep the place too. pickerctl history lists everything you have added to any app.

        \(placeNamesCredit)
        """
    }
}
