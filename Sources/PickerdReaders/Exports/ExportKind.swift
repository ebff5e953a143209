import Foundation
import Glibc
import PickerdImport

/// What kind of export a file is, told from its first bytes (never its name alone): a Records.json
/// named `foo.txt` is still Records.
public enum ExportKind: String, Sendable, Hashable, CaseIterable {
    /// Google Takeout's `Records.json` (raw points): `{"locations": [`.
    case records
    /// Google Takeout's Semantic Location History month: `{"timelineObjects": [`.
    case semantic
    /// The on-device Timeline export (`Timeline.json`): `{"semanticSegments": [`.
    case timeline
    /// Google Maps' Timeline export on iOS (`location-history.json`): an array of segments (or one
    /// segment), each with `startTime`, `endTime` and a `visit`, `activity` or `timelinePath`.
    case mapsHistory = "location-history"
    /// An OwnTracks Recorder `.rec` file: an ISO time, a tab (or spaces), a topic, a tab (or
    /// spaces), `{"_type"…`.
    case owntracks
    /// GPX (XML with a `<gpx` root).
    case gpx
    /// Garmin's Training Center XML (`<TrainingCenterDatabase` root).
    case tcx
    /// A FIT file (`.FIT` at bytes 8…11 of its header).
    case fit
    /// gzip-compressed (`1f 8b`): the caller inflates it and detects again.
    case gzip
    /// A zip archive (`PK\3\4`): the caller lists it and detects each member.
    case zip
    /// A ListenBrainz export: JSON Lines whose objects have `listened_at` or `track_metadata`
    /// (the user export's `listens/YYYY/M.jsonl`), or a JSON array of such listens (the older export).
    case listenbrainz
    /// A Last.fm scrobbles CSV, by its header or its shape (see ``LastFMExport``).
    case lastfm
    /// A Spotify history: a JSON array of plays, the extended streaming history's (`ts`,
    /// `ms_played`, `master_metadata_…`) or the account data's (`endTime`, `msPlayed`); an empty
    /// array, or a file that is not JSON, only when Spotify's name for it says so (see ``SpotifyExport``).
    case spotify
    /// A Daylio CSV export (its header begins `full_date`, or `year` in Daylio's older layout).
    case daylio
    /// A vCard file (`BEGIN:VCARD`, after any BOM and blank lines): one card or many.
    case vcard
    /// An iCalendar file (`BEGIN:VCALENDAR`, after any BOM and blank lines).
    case ics
    /// Apple Health's `export.xml` (`<!DOCTYPE HealthData` or a `<HealthData` root): see ``AppleHealthExport``.
    case appleHealth = "apple-health"
    /// A SQLite database (`SQLite format 3`), read as Gadgetbridge's database export (see
    /// ``GadgetbridgeExport``); a file named `Gadgetbridge` or `Gadgetbridge.db` that is no
    /// database goes to it too, so the person hears why it is not one.
    case gadgetbridge

    /// The first 4 KiB of the regular file at `path`: what ``detect(_:name:)`` reads, and no more
    /// (a first scan tries every file a photo reader did not take). `nil` when it cannot be opened
    /// (through ``ReaderFiles``) or is not a regular file: a FIFO is opened without blocking and never read.
    static func prefix(ofFile path: String) -> [UInt8]? {
        // A stream: a zip's entry too large to unpack (Apple Health's export.xml) is inflated only this far.
        guard let stream = ReaderFiles.openStream(path) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 4_096)
        var count = 0
        while count < bytes.count {
            guard let n = try? bytes.withUnsafeMutableBytes({ (raw) throws(ReaderFiles.StreamFailure) -> Int in
                try stream.read(into: raw.baseAddress! + count, count: raw.count - count)
            }) else {
                // Damaged further on: what came before still tells the kind, and its reader says what is wrong.
                if count > 0 { break }
                return nil
            }
            if n == 0 { break }
            count += n
        }
        return Array(bytes.prefix(count))
    }

    /// The kind of a file from its first bytes.
    ///
    /// JSON exports are told by the first top-level key among `locations`, `timelineObjects`,
    /// `semanticSegments`, `listened_at` and `track_metadata` (keys are read with the streaming
    /// parser, so a key in a nested object never counts, and a prefix that ends mid-file is fine).
    /// `name` is consulted only when the prefix is a JSON object that ends or breaks before any of
    /// those keys (a huge first member, a file broken early): then the names `Records.json`,
    /// `Timeline.json` and `YYYY_MONTH.json` decide, so the reader can say where such a file is broken.
    /// - Parameters:
    ///   - prefix: the file's first bytes (4 KiB is plenty; fewer work for small files).
    ///   - name: the file's name.
    /// - Returns: the kind, nil when it is none of these (or the prefix is empty).
    public static func detect(_ prefix: [UInt8], name: String) -> ExportKind? {
        if let kind = detectContent(prefix, name: name) { return kind }
        // Spotify's names: its podcast history is `[]` for someone who played none, and a file so
        // named that is not JSON goes to its reader, which says why.
        if !prefix.isEmpty, SpotifyExport.isHistoryName(name) { return .spotify }
        let lower = name.lowercased()
        return lower == "gadgetbridge" || lower == "gadgetbridge.db" ? .gadgetbridge : nil
    }

    private static func detectContent(_ prefix: [UInt8], name: String) -> ExportKind? {
        if prefix.starts(with: Array("SQLite format 3\0".utf8)) { return .gadgetbridge }
        if prefix.count >= 12, prefix[8..<12].elementsEqual(".FIT".utf8) { return .fit }
        if prefix.count >= 2, prefix[0] == 0x1F, prefix[1] == 0x8B { return .gzip }
        if prefix.count >= 4, prefix[0..<4].elementsEqual([0x50, 0x4B, 0x03, 0x04]) { return .zip }
        var start = 0
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[start]) { start += 1 }
        guard start < prefix.count else { return nil }
        let body = prefix[start...]
        switch body.first {
        case UInt8(ascii: "{"): return json(body, name: name)
        case UInt8(ascii: "<"): return xml(body)
        case UInt8(ascii: "["): return jsonArray(body) ?? (spotifyArray(body) ? .spotify : nil)
        default: return textDirectory(body) ?? ownTracks(body) ?? listeningCSV(body) ?? olderDaylio(body)
        }
    }

    private static func json(_ body: ArraySlice<UInt8>, name: String) -> ExportKind? {
        var parser = JSONPullParser(bytes: body)
        do {
            try parser.beginObject()
            while try parser.nextKey() {
                switch String(decoding: parser.scratch, as: UTF8.self) {
                case "locations": return .records
                case "timelineObjects": return .semantic
                case "semanticSegments": return .timeline
                case "listened_at", "track_metadata": return .listenbrainz
                case "visit", "activity", "timelinePath": return .mapsHistory
                default: try parser.skipValue()
                }
            }
            return nil
        } catch {
            // The prefix ended (or broke) before a known key: only then may the name help (and a
            // broken file so named goes to its reader, which says where it broke).
            let lower = name.lowercased()
            if lower == "records.json" { return .records }
            if lower == "timeline.json" { return .timeline }
            if lower.hasSuffix(".json"), lower.count > 10, lower.prefix(4).allSatisfy(\.isNumber), lower.dropFirst(4).first == "_" { return .semantic }
            return nil
        }
    }

    /// Daylio's older CSV layout: `year,date,weekday,time,mood,activities,note`.
    static func olderDaylio(_ body: ArraySlice<UInt8>) -> ExportKind? {
        let line = String(decoding: body.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
        let header = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return header.first == "year" && DaylioExport.olderRequired.allSatisfy(header.contains) ? .daylio : nil
    }

    /// What a file that is no export is, from its first bytes, for the person who named it: a photo
    /// or video (indexed from a source folder instead), JSON with its first keys, XML with its root,
    /// text with its first line, or binary with its first bytes.
    public static func describe(_ prefix: [UInt8]) -> String {
        guard !prefix.isEmpty else { return "the file is empty" }
        if let media = MediaFormat(head: Array(prefix.prefix(32))) {
            return "\(media.contentType) (photos and videos are indexed where they are: pickerctl sources add FOLDER)"
        }
        func shown(_ bytes: some Collection<UInt8>) -> String {
            let text = String(decoding: bytes.prefix(60), as: UTF8.self)
            let clean = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
            return clean + (bytes.count > 60 ? "…" : "")
        }
        var start = 0
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[start]) { start += 1 }
        let body = prefix[start...]
        let printable = body.prefix(512).allSatisfy { $0 >= 0x20 || [0x09, 0x0A, 0x0D].contains($0) }
        guard printable, let first = body.first else {
            return "binary data (it begins " + prefix.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ") + ")"
        }
        switch first {
        case UInt8(ascii: "{"):
            var parser = JSONPullParser(bytes: body)
            var keys: [String] = []
            do {
                try parser.beginObject()
                while keys.count < 4, try parser.nextKey() {
                    keys.append(String(decoding: parser.scratch, as: UTF8.self))
                    try parser.skipValue()
                }
            } catch {}
            return keys.isEmpty ? "JSON that is no export this reader knows" : "JSON whose keys (\(keys.joined(separator: ", "))) are no export's"
        case UInt8(ascii: "["):
            return "a JSON array whose first element is no listen, no Spotify play and no Timeline segment"
        case UInt8(ascii: "<"):
            return "XML (or HTML) whose root is none of <gpx>, <TrainingCenterDatabase> and <HealthData>"
        default:
            return "text whose first line (\"\(shown(body.prefix { $0 != 0x0A && $0 != 0x0D }))\") is no export's"
        }
    }

    private static func xml(_ body: ArraySlice<UInt8>) -> ExportKind? {
        // The root element: skip the declaration, comments, processing instructions and a doctype.
        var i = body.startIndex
        while let lt = body[i...].firstIndex(of: UInt8(ascii: "<")) {
            let rest = body[(lt + 1)...]
            // Apple Health's export.xml opens with a DOCTYPE whose internal subset outruns the prefix.
            if rest.starts(with: Array("!DOCTYPE".utf8)) {
                let name = rest.dropFirst(8).drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
                    .prefix { ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "["), UInt8(ascii: ">")].contains($0) }
                if name.elementsEqual("HealthData".utf8) { return .appleHealth }
            }
            if rest.first == UInt8(ascii: "?") || rest.first == UInt8(ascii: "!") {
                guard let gt = rest.firstIndex(of: UInt8(ascii: ">")) else { return nil }
                i = gt + 1
                continue
            }
            // The name, possibly with a namespace prefix (`<gpx:gpx`).
            let nameEnd = rest.firstIndex { [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains($0) } ?? rest.endIndex
            let qualified = String(decoding: rest[..<nameEnd], as: UTF8.self)
            let local = qualified.split(separator: ":").last.map(String.init) ?? qualified
            switch local {
            case "gpx": return .gpx
            case "TrainingCenterDatabase": return .tcx
            case "HealthData": return .appleHealth
            default: return nil
            }
        }
        return nil
    }

    /// A vCard or an iCalendar file: its first line is `BEGIN:VCARD` or `BEGIN:VCALENDAR` (in any case).
    private static func textDirectory(_ body: ArraySlice<UInt8>) -> ExportKind? {
        let bytes = body.prefix { $0 != 0x0A && $0 != 0x0D }.prefix(32)
        let line = String(decoding: bytes.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed(), as: UTF8.self).uppercased()
        if line == "BEGIN:VCARD" { return .vcard }
        if line == "BEGIN:VCALENDAR" { return .ics }
        return nil
    }

    private static func ownTracks(_ body: ArraySlice<UInt8>) -> ExportKind? {
        let line = body.prefix { $0 != 0x0A }
        guard let fields = OwnTracksRecorder.fields(line), LocationHistory.milliseconds(iso: Array(fields.time)) != nil else { return nil }
        return fields.json.contains(subsequence: "\"_type\"") ? .owntracks : nil
    }

    /// A JSON array by its first element's keys: a listen (`listened_at`, `track_metadata`) is the
    /// older ListenBrainz export; a Timeline segment (`visit`, `activity`, `timelinePath`) is Google
    /// Maps' location history on iOS.
    static func jsonArray(_ body: ArraySlice<UInt8>) -> ExportKind? {
        let kinds: [String: ExportKind] = ["listened_at": .listenbrainz, "track_metadata": .listenbrainz,
                                           "visit": .mapsHistory, "activity": .mapsHistory, "timelinePath": .mapsHistory]
        var parser = JSONPullParser(bytes: body)
        do {
            try parser.beginArray()
            guard try parser.nextElement(), try parser.peekKind() == .object else { return nil }
            try parser.beginObject()
            while try parser.nextKey() {
                if let kind = kinds[String(decoding: parser.scratch, as: UTF8.self)] { return kind }
                try parser.skipValue()
            }
        } catch {}
        return nil
    }
}

private extension Collection where Element == UInt8 {
    func contains(subsequence: String) -> Bool {
        let needle = Array(subsequence.utf8)
        let bytes = Array(self)
        guard bytes.count >= needle.count else { return false }
        for i in 0...(bytes.count - needle.count) where bytes[i..<(i + needle.count)].elementsEqual(needle) { return true }
        return false
    }
}
