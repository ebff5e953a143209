import Foundation
public import PickerdImport

/// Spotify's listening history, in both layouts Spotify sends (Account privacy → Download your data):
/// - the **Extended streaming history** (`my_spotify_data.zip` → `Spotify Extended Streaming
///   History/Streaming_History_Audio_YYYY[-YYYY]_N.json`, and `Streaming_History_Video_*.json`): a JSON
///   array of plays, each
///   ```
///   {"ts": "2026-03-16T07:15:28Z", "platform": "android", "ms_played": 295000, "conn_country": "DE",
///    "ip_addr": "…", "master_metadata_track_name": "Gosh", "master_metadata_album_artist_name": "Jamie xx",
///    "master_metadata_album_album_name": "In Colour", "spotify_track_uri": "spotify:track:…",
///    "episode_name": null, "episode_show_name": null, "spotify_episode_uri": null, "audiobook_title": null, …,
///    "reason_start": "trackdone", "reason_end": "trackdone", "shuffle": false, "skipped": false,
///    "offline": false, "offline_timestamp": null, "incognito_mode": false}
///   ```
///   `ts` is when the play **ended** (UTC); it started `ms_played` earlier. A podcast episode has
///   `episode_name` and `episode_show_name` instead of the track's fields; an audiobook chapter its
///   `audiobook_*` fields.
/// - the **Account data** history (`Spotify Account Data/StreamingHistory_music_N.json`,
///   `StreamingHistory_podcast_N.json`, and before 2023 `StreamingHistoryN.json`): an array of
///   `{"endTime": "2024-01-01 12:00", "artistName", "trackName", "msPlayed"}` (music) or
///   `{"endTime", "podcastName", "episodeName", "msPlayed"}` (podcasts), `endTime` in UTC to the minute.
///
/// What becomes a listen: a play that counts by ``ListeningRules`` (as pickerd counts a play it
/// follows live, Last.fm's rule), the track's length taken from the file's plays of it that ran to
/// their end (`reason_end` `trackdone`), four minutes where none did. Left out, and counted: plays
/// in a private session (`incognito_mode`, which Spotify itself keeps out of the person's taste
/// profile: the person chose not to keep them), plays that do not count, plays that name neither a
/// track nor an episode (an ad, a video, a local file whose metadata Spotify dropped), audiobook
/// chapters, and records that cannot be read (the first named with where it is); the rest is
/// imported. A file whose JSON is broken is refused, naming the line.
///
/// Streamed an element at a time: a ten-year history (hundreds of MB) is never in memory as JSON.
public enum SpotifyExport {
    /// The left-out counts' words (``ImportedData/leftOut``).
    static let privatePlays = "plays in a private session left out"
    static let shortPlays = "plays too short to count left out"
    static let unnamedPlays = "plays without a track or an episode left out"
    static let audiobookPlays = "audiobook chapters left out"

    /// Reads a Spotify history file (either layout).
    /// - Parameters:
    ///   - path: the file.
    ///   - name: its name, for errors.
    /// - Returns: its listens (songs and podcast episodes), in file order, and what was left out.
    /// - Throws: ``ImportError`` naming the file and the line when its JSON is broken.
    public static func read(path: String, name: String) throws(ImportError) -> ImportedData {
        var data = ImportedData()
        var pool = StringPool()
        var plays: [Play] = []
        var lengths: [String: Int64] = [:]
        var broken = 0
        var firstBroken = ""
        do {
            try withJSONFile(path) { parser in
                try parser.beginArray()
                var index = 0
                while try parser.nextElement() {
                    _ = try parser.peekKind()  // to the record's first byte, for its line
                    let line = parser.line
                    let fields = try Fields(&parser)
                    index += 1
                    switch play(fields, pool: &pool) {
                    case .success(let play?):
                        if play.endedNaturally, let key = play.key { lengths[key] = max(lengths[key] ?? 0, play.playedMs) }
                        plays.append(play)
                    case .success(nil):
                        if fields.incognito == true {
                            data.leftOut[privatePlays, default: 0] += 1
                        } else if fields.audiobook {
                            data.leftOut[audiobookPlays, default: 0] += 1
                        } else {
                            data.leftOut[unnamedPlays, default: 0] += 1
                        }
                    case .failure(let reason):
                        broken += 1
                        if firstBroken.isEmpty { firstBroken = "play \(index) (line \(line)): \(reason)" }
                    }
                }
                try parser.finish()
            }
        } catch {
            throw ImportError(file: name, location: error.location, error.message)
        }
        if broken > 0 { data.leftOut["records that cannot be read left out (the first, \(firstBroken))"] = broken }
        let rules = ListeningRules()
        data.listens.reserveCapacity(plays.count)
        for play in plays {
            let length = play.key.flatMap { lengths[$0] }.map { Duration.milliseconds($0) }
            guard rules.counts(played: .milliseconds(play.playedMs), length: length) else {
                data.leftOut[shortPlays, default: 0] += 1
                continue
            }
            data.listens.append(ImportedListen(startMs: play.endMs - play.playedMs, durationMs: play.key.flatMap { lengths[$0] },
                                               artist: play.artist, track: play.title, album: play.album,
                                               isPodcast: play.isPodcast, format: "spotify"))
        }
        return data
    }

    /// A play read, before the rule decides whether it counts.
    struct Play {
        var endMs: Int64
        var playedMs: Int64
        var artist: String
        var title: String
        var album: String
        var isPodcast: Bool
        /// What identifies the track or episode for its length: its URI, else artist and title.
        var key: String?
        /// Whether it ran to its end (its length is the track's).
        var endedNaturally: Bool
    }

    /// The play `fields` describe: `nil` for one that is left out by design (private, nothing
    /// named, an audiobook), a reason for a record that cannot be read.
    static func play(_ f: Fields, pool: inout StringPool) -> Result<Play?, Reason> {
        guard let ended = f.endTime else {
            return .failure(Reason(f.endTimeText.map { "ts \"\($0)\" is not a time" } ?? "no ts or endTime"))
        }
        guard let played = f.playedMs else {
            return .failure(Reason(f.playedText.map { "ms_played \($0) is not a whole number of milliseconds" } ?? "no ms_played"))
        }
        guard played >= 0, played < 86_400_000 * 7, played <= ended else { return .failure(Reason("ms_played \(played) is not the length of a play")) }
        if f.incognito == true { return .success(nil) }
        if let episode = f.episode?.trimmedEnds, !episode.isEmpty {
            let show = f.show?.trimmedEnds ?? ""
            return .success(Play(endMs: ended, playedMs: played, artist: pool(show), title: episode, album: pool(show), isPodcast: true,
                                 key: f.episodeURI ?? "\(show)|\(episode)", endedNaturally: f.reasonEnd == "trackdone"))
        }
        if let track = f.track?.trimmedEnds, !track.isEmpty, let artist = f.artist?.trimmedEnds, !artist.isEmpty {
            return .success(Play(endMs: ended, playedMs: played, artist: pool(artist), title: track, album: pool(f.album?.trimmedEnds ?? ""),
                                 isPodcast: f.podcastFile, key: f.trackURI ?? "\(artist)|\(track)", endedNaturally: f.reasonEnd == "trackdone"))
        }
        return .success(nil)
    }

    /// Why a record cannot be read.
    struct Reason: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// What one play's JSON says, as read (both layouts' names).
    struct Fields {
        var endTime: Int64?
        var endTimeText: String?
        var playedMs: Int64?
        var playedText: String?
        var track: String?
        var artist: String?
        var album: String?
        var trackURI: String?
        var episode: String?
        var show: String?
        var episodeURI: String?
        var reasonEnd: String?
        var incognito: Bool?
        var audiobook = false
        /// An account-data podcast file's play (`podcastName`, `episodeName`).
        var podcastFile = false

        private static let ts = Array("ts".utf8), endTimeKey = Array("endTime".utf8)
        private static let msPlayed = Array("ms_played".utf8), msPlayedOld = Array("msPlayed".utf8)
        private static let trackName = Array("master_metadata_track_name".utf8), trackNameOld = Array("trackName".utf8)
        private static let artistName = Array("master_metadata_album_artist_name".utf8), artistNameOld = Array("artistName".utf8)
        private static let albumName = Array("master_metadata_album_album_name".utf8), trackURIKey = Array("spotify_track_uri".utf8)
        private static let episodeName = Array("episode_name".utf8), episodeNameOld = Array("episodeName".utf8)
        private static let showName = Array("episode_show_name".utf8), podcastName = Array("podcastName".utf8)
        private static let episodeURIKey = Array("spotify_episode_uri".utf8), reasonEndKey = Array("reason_end".utf8)
        private static let incognitoKey = Array("incognito_mode".utf8), audiobookTitle = Array("audiobook_title".utf8)
        private static let audiobookChapter = Array("audiobook_chapter_title".utf8)

        /// Reads one play object, skipping what is not needed (the IP address and country are
        /// never kept). A value of the wrong type is recorded as unreadable, not thrown: one bad
        /// record does not refuse the file.
        init(_ p: inout JSONPullParser) throws(JSONError) {
            guard try p.peekKind() == .object else {
                try p.skipValue()
                return
            }
            try p.beginObject()
            while try p.nextKey() {
                if p.keyIs(Self.ts) || p.keyIs(Self.endTimeKey) {
                    let old = p.keyIs(Self.endTimeKey)
                    if let text = try Self.string(&p) {
                        endTimeText = text
                        endTime = old ? Self.minute(text) : LocationHistory.milliseconds(iso: text)
                    }
                } else if p.keyIs(Self.msPlayed) || p.keyIs(Self.msPlayedOld) {
                    switch try p.peekKind() {
                    case .number:
                        let value = try p.readDouble()
                        if value.isFinite, value.rounded() == value, abs(value) < 1e15 { playedMs = Int64(value) } else { playedText = "\(value)" }
                    case .null:
                        try p.skipValue()
                    case .string:
                        playedText = "\"\(try p.readString())\""
                    default:
                        try p.skipValue()
                        playedText = "that is not a number"
                    }
                } else if p.keyIs(Self.trackName) || p.keyIs(Self.trackNameOld) {
                    track = try Self.string(&p)
                } else if p.keyIs(Self.artistName) || p.keyIs(Self.artistNameOld) {
                    artist = try Self.string(&p)
                } else if p.keyIs(Self.albumName) {
                    album = try Self.string(&p)
                } else if p.keyIs(Self.trackURIKey) {
                    trackURI = try Self.string(&p)
                } else if p.keyIs(Self.episodeName) || p.keyIs(Self.episodeNameOld) {
                    episode = try Self.string(&p)
                } else if p.keyIs(Self.showName) || p.keyIs(Self.podcastName) {
                    if p.keyIs(Self.podcastName) { podcastFile = true }
                    show = try Self.string(&p)
                } else if p.keyIs(Self.episodeURIKey) {
                    episodeURI = try Self.string(&p)
                } else if p.keyIs(Self.reasonEndKey) {
                    reasonEnd = try Self.string(&p)
                } else if p.keyIs(Self.incognitoKey) {
                    if try p.peekKind() == .bool { incognito = try p.readBool() } else { try p.skipValue() }
                } else if p.keyIs(Self.audiobookTitle) || p.keyIs(Self.audiobookChapter) {
                    if try Self.string(&p) != nil { audiobook = true }
                } else {
                    try p.skipValue()
                }
            }
        }

        /// A string's value; nil (and the value skipped) for anything else, `null` included.
        private static func string(_ p: inout JSONPullParser) throws(JSONError) -> String? {
            guard try p.peekKind() == .string else { try p.skipValue(); return nil }
            return try p.readString()
        }

        /// The account-data layout's `endTime`, "YYYY-MM-DD HH:MM" in UTC, as ms since 1970.
        static func minute(_ text: String) -> Int64? {
            let b = Array(text.utf8)
            guard b.count == 16, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: " "), b[13] == UInt8(ascii: ":") else { return nil }
            return LocationHistory.milliseconds(iso: Array(b[0..<10]) + Array("T".utf8) + Array(b[11..<16]) + Array(":00Z".utf8))
        }
    }
}

extension ExportKind {
    /// A JSON array's first element is a Spotify play: the extended history's `ts` with `ms_played`
    /// or `master_metadata_*`, or the account data's `endTime` with `msPlayed`.
    static func isSpotifyPlay(keys: Set<String>) -> Bool {
        (keys.contains("ts") && (keys.contains("ms_played") || keys.contains("master_metadata_track_name")))
            || (keys.contains("endTime") && keys.contains("msPlayed"))
    }
}
