import Foundation
import PickerdMoments
public import PickerdImport

/// Spotify's listening history, in both layouts Spotify mails (in `my_spotify_data.zip`, or unpacked):
/// - **Extended streaming history** (`Spotify Extended Streaming History/Streaming_History_Audio_YYYY[-YYYY]_N.json`,
///   and `Streaming_History_Video_…` for video podcasts): a JSON array, indented by four
///   spaces, of one object per play:
///   ```
///   {
///     "ts": "2023-06-01T18:24:52Z",            // UTC, when the play ENDED
///     "platform": "android",
///     "ms_played": 236853,
///     "conn_country": "DE",
///     "ip_addr": "…",                           // older files: username, ip_addr_decrypted, user_agent_decrypted
///     "master_metadata_track_name": "Says",
///     "master_metadata_album_artist_name": "Nils Frahm",
///     "master_metadata_album_album_name": "Spaces",
///     "spotify_track_uri": "spotify:track:…",
///     "episode_name": null, "episode_show_name": null, "spotify_episode_uri": null,
///     "audiobook_title": null, …                 // newer files
///     "reason_start": "trackdone", "reason_end": "trackdone",
///     "shuffle": false, "skipped": false, "offline": false, "offline_timestamp": 1685643692,
///     "incognito_mode": false
///   }
///   ```
/// - **Account data** (`Spotify Account Data/StreamingHistory_music_N.json`, `StreamingHistory_podcast_N.json`,
///   and the older `StreamingHistoryN.json`, music only): a JSON array of
///   `{"endTime" : "2023-06-01 18:24", "artistName" : …, "trackName" : …, "msPlayed" : 236853}`
///   (a podcast's: `podcastName`, `episodeName`), `endTime` in UTC to the minute.
///
/// A play started `ms_played` before it ended (pauses aside: Spotify keeps no start). It becomes a
/// listen when it counts by the listening rule pickerd applies to live plays
/// (``ListeningRules``: half the track or four minutes, whichever is less; never a track under 30 s):
/// Spotify does not give a track's length, but a play that ended because the track did
/// (`reason_end` `trackdone`) was the whole track, so it counts from 30 s; a play cut short counts
/// from four minutes (the rule for a track of unknown length). The account data has no `reason_end`:
/// a play there counts from 30 s (Spotify's own count of a stream, and the rule's minimum), since
/// asking four minutes of every play would leave out most songs that were played whole.
///
/// Left out, and counted in the import's report: plays in incognito mode (the person asked Spotify
/// not to remember them), plays that name no track and no episode (ads, videos, tracks Spotify lost
/// the metadata of), audiobook chapters (no item kind holds them yet), and plays too short to count.
/// A record that is broken (not an object, no `ts`, a time that is not one, a field of the wrong
/// type, a `ms_played` that is not a number) is left out and named with its reason (the first
/// ``maximumNamed``, the rest counted); the rest of the file is imported. A file that is not JSON (or
/// breaks off) is refused whole, naming the line. Streamed: one play at a time, memory bounded by
/// what is kept (the listens, their artist and album strings shared).
public enum SpotifyExport {
    /// How many broken records are named one by one before the rest are only counted.
    static let maximumNamed = 20

    /// What one record says, as read (nil: absent or JSON null).
    struct Play {
        var ts: String?
        var msPlayed: Int64?
        var track: String?
        var artist: String?
        var album: String?
        var episode: String?
        var show: String?
        var audiobook: String?
        var reasonEnd: String?
        var incognito = false
        /// `endTime`: the account data's layout.
        var endTime: String?
        /// Why it is broken, the first thing found.
        var broken: String?
    }

    /// Whether `name` is one Spotify gives a history file: `Streaming_History_Audio_…json`,
    /// `Streaming_History_Video_…json`, `StreamingHistory_music_N.json`, `StreamingHistory_podcast_N.json`,
    /// `StreamingHistoryN.json`. Only consulted when the content cannot tell (an empty array, a file
    /// that is not JSON), so that such a file is read, or refused with its reason, as Spotify's.
    public static func isHistoryName(_ name: String) -> Bool {
        let lower = name.lowercased()
        guard lower.hasSuffix(".json") else { return false }
        return lower.hasPrefix("streaming_history_audio_") || lower.hasPrefix("streaming_history_video_") || lower.hasPrefix("streaminghistory")
    }

    /// Reads a Spotify history file (either layout).
    /// - Parameters:
    ///   - path: the file.
    ///   - name: its name, for errors.
    /// - Returns: its listens (songs and podcast episodes), in file order, and what was left out.
    /// - Throws: ``ImportError`` naming the file and line when it is not JSON, not an array, or breaks off.
    public static func read(path: String, name: String) throws(ImportError) -> ImportedData {
        var data = ImportedData()
        var pool = StringPool()
        var named = 0
        do {
            try withJSONFile(path) { parser in
                guard try parser.peekKind() == .array else {
                    throw ImportError(file: name, "not a Spotify history: its JSON is not an array of plays")
                }
                try parser.beginArray()
                var index = 0
                while try parser.nextElement() {
                    // The element's own line (peeking skips the white space after the comma).
                    let kind = try parser.peekKind()
                    let line = parser.line
                    var play: Play
                    if kind == .object {
                        play = try Self.play(&parser)
                    } else {
                        try parser.skipValue()
                        play = Play(broken: "not an object")
                    }
                    if let listen = Self.listen(play, data: &data, pool: &pool) {
                        data.listens.append(listen)
                    } else if let reason = play.broken ?? Self.timeProblem(play) {
                        if named < maximumNamed {
                            data.leftOut["broken plays left out (record \(index), line \(line): \(reason))", default: 0] += 1
                            named += 1
                        } else {
                            data.leftOut["more broken plays left out", default: 0] += 1
                        }
                    }
                    index += 1
                }
                try parser.finish()
            }
        } catch {
            throw ImportError(file: name, location: error.location, error.message)
        }
        return data
    }

    /// Reads one play's object, skipping what is not needed; a field of the wrong type marks it broken.
    static func play(_ p: inout JSONPullParser) throws(JSONError) -> Play {
        var play = Play()
        func wrong(_ key: String, _ what: String) { if play.broken == nil { play.broken = "\(key) is \(what)" } }
        func string(_ key: String) throws(JSONError) -> String? {
            switch try p.peekKind() {
            case .string: return try p.readString()
            case .null:
                try p.skipValue()
                return nil
            case let kind:
                try p.skipValue()
                wrong(key, "\(describe(kind)), not a string")
                return nil
            }
        }
        func milliseconds(_ key: String) throws(JSONError) -> Int64? {
            switch try p.peekKind() {
            case .number:
                guard let v = try p.readInt64(), v >= 0 else {
                    wrong(key, "not a whole number of milliseconds")
                    return nil
                }
                return v
            case .string:
                let text = try p.readString()
                wrong(key, "\"\(text.prefix(40))\", not a number")
                return nil
            case .null:
                try p.skipValue()
                return nil
            case let kind:
                try p.skipValue()
                wrong(key, "\(describe(kind)), not a number")
                return nil
            }
        }
        try p.beginObject()
        while try p.nextKey() {
            if p.keyIs("ts") {
                play.ts = try string("ts")
            } else if p.keyIs("ms_played") {
                play.msPlayed = try milliseconds("ms_played")
            } else if p.keyIs("master_metadata_track_name") {
                play.track = try string("master_metadata_track_name")
            } else if p.keyIs("master_metadata_album_artist_name") {
                play.artist = try string("master_metadata_album_artist_name")
            } else if p.keyIs("master_metadata_album_album_name") {
                play.album = try string("master_metadata_album_album_name")
            } else if p.keyIs("episode_name") {
                play.episode = try string("episode_name")
            } else if p.keyIs("episode_show_name") {
                play.show = try string("episode_show_name")
            } else if p.keyIs("audiobook_chapter_title") || p.keyIs("audiobook_title") {
                play.audiobook = try string("audiobook_title") ?? play.audiobook
            } else if p.keyIs("reason_end") {
                play.reasonEnd = try string("reason_end")
            } else if p.keyIs("incognito_mode") {
                switch try p.peekKind() {
                case .bool: play.incognito = try p.readBool()
                case .null: try p.skipValue()
                case let kind:
                    try p.skipValue()
                    wrong("incognito_mode", "\(describe(kind)), not true or false")
                }
            } else if p.keyIs("endTime") {
                play.endTime = try string("endTime")
            } else if p.keyIs("msPlayed") {
                play.msPlayed = try milliseconds("msPlayed")
            } else if p.keyIs("artistName") {
                play.artist = try string("artistName")
            } else if p.keyIs("trackName") {
                play.track = try string("trackName")
            } else if p.keyIs("podcastName") {
                play.show = try string("podcastName")
            } else if p.keyIs("episodeName") {
                play.episode = try string("episodeName")
            } else {
                try p.skipValue()
            }
        }
        return play
    }

    private static func describe(_ kind: JSONPullParser.Kind) -> String {
        switch kind {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "true or false"
        case .null: "null"
        }
    }

    /// When the play ended, ms since 1970: `ts` (ISO 8601 in UTC; older files may have a space for
    /// the `T` and no `Z`) or `endTime` (`YYYY-MM-DD HH:MM`, UTC). nil when it is neither.
    static func endMs(_ play: Play) -> Int64? {
        if let ts = play.ts {
            var bytes = Array(ts.utf8)
            if bytes.count == 19, bytes[10] == 0x20 {
                bytes[10] = UInt8(ascii: "T")
                bytes.append(UInt8(ascii: "Z"))
            }
            return LocationHistory.milliseconds(iso: bytes)
        }
        guard let text = play.endTime else { return nil }
        let b = Array(text.utf8)
        guard b.count == 16, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x20, b[13] == 0x3A else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60 else { return nil }
        return (Int64(Civil.days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3_600 + minute * 60)) * 1_000
    }

    /// Why a play's time or length cannot be read, nil when they can.
    static func timeProblem(_ play: Play) -> String? {
        if play.ts == nil, play.endTime == nil { return "a play without ts (or endTime)" }
        if endMs(play) == nil { return "the time \"\((play.ts ?? play.endTime ?? "").prefix(40))\" is not a UTC time" }
        if play.msPlayed == nil { return "a play without ms_played (or msPlayed)" }
        return nil
    }

    /// Whether a play of `msPlayed` counts as a listen (see the type's documentation).
    /// - Parameters:
    ///   - msPlayed: how long it played.
    ///   - reasonEnd: why it ended (extended history); nil in the account data.
    ///   - extended: whether it comes from the extended history (which says why a play ended).
    public static func counts(msPlayed: Int64, reasonEnd: String?, extended: Bool) -> Bool {
        // A play that ran to the track's end (or, in the account data, which does not say, is
        // taken to have) was the whole track: its length. One cut short leaves the length unknown.
        let length: Duration? = !extended || reasonEnd == "trackdone" ? .milliseconds(msPlayed) : nil
        guard let needed = ListeningRules().threshold(length: length) else { return false }
        return .milliseconds(msPlayed) >= needed
    }

    /// The listen `play` is, nil when it is none (what was left out counted in `data`, except a
    /// broken play, which the caller names).
    static func listen(_ play: Play, data: inout ImportedData, pool: inout StringPool) -> ImportedListen? {
        guard play.broken == nil, timeProblem(play) == nil, let end = endMs(play), let played = play.msPlayed else { return nil }
        if play.incognito {
            data.leftOut["plays in incognito mode left out", default: 0] += 1
            return nil
        }
        let extended = play.ts != nil
        let track = play.track?.trimmedEnds ?? "", artist = play.artist?.trimmedEnds ?? ""
        let episode = play.episode?.trimmedEnds ?? "", show = play.show?.trimmedEnds ?? ""
        let isPodcast: Bool
        if !track.isEmpty, !artist.isEmpty {
            isPodcast = false
        } else if !episode.isEmpty, !show.isEmpty {
            isPodcast = true
        } else if play.audiobook != nil {
            data.leftOut["audiobook chapters left out", default: 0] += 1
            return nil
        } else {
            data.leftOut["plays with no track or episode left out (ads, videos, lost metadata)", default: 0] += 1
            return nil
        }
        guard counts(msPlayed: played, reasonEnd: play.reasonEnd, extended: extended) else {
            data.leftOut["plays too short to count as listens left out", default: 0] += 1
            return nil
        }
        // The start is the end less what was played: Spotify keeps no start (a pause makes it later
        // than the real one, which the cross-source match's tolerance allows for).
        let start = end - played
        // A play that ran to the track's end says how long the track is.
        let length: Int64? = extended && play.reasonEnd == "trackdone" ? played : nil
        if isPodcast {
            let shared = pool(show)
            return ImportedListen(startMs: start, durationMs: length, artist: shared, track: episode, album: shared, isPodcast: true, format: "spotify")
        }
        return ImportedListen(startMs: start, durationMs: length, artist: pool(artist), track: track, album: pool(play.album?.trimmedEnds ?? ""),
                              format: "spotify")
    }
}

extension ExportKind {
    /// A JSON array whose first play is Spotify's: the extended history's (`ms_played`,
    /// `master_metadata_…`, `spotify_track_uri`) or the account data's (`msPlayed`, `endTime`).
    static func spotifyArray(_ body: ArraySlice<UInt8>) -> Bool {
        var parser = JSONPullParser(bytes: body)
        do {
            try parser.beginArray()
            guard try parser.nextElement(), try parser.peekKind() == .object else { return false }
            try parser.beginObject()
            while try parser.nextKey() {
                switch String(decoding: parser.scratch, as: UTF8.self) {
                case "ms_played", "master_metadata_track_name", "master_metadata_album_artist_name", "spotify_track_uri", "msPlayed", "endTime":
                    return true
                default: try parser.skipValue()
                }
            }
        } catch {}
        return false
    }
}
