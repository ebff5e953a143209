import Foundation
public import PickerdImport

/// ListenBrainz exports, in both shapes ListenBrainz has written:
/// - the user export (Settings → Export, since 2024), a zip that ``ExportImporter`` unpacks: `user.json`,
///   `listens/YYYY/M.jsonl` (one listen per line, a file per month), `feedback.jsonl` and
///   `pinned_recording.jsonl` (the last three are not listens and are left alone). Each line is the
///   listen as PostgreSQL's `jsonb` writes it (keys by length; times as `extract(epoch …)` gives them,
///   with a fraction), from `listenbrainz/background/export.py`:
///   ```
///   {"inserted_at": 1612100000.000000, "listened_at": 1612096440.000000, "track_metadata": {"track_name": "Says",
///    "artist_name": "Nils Frahm", "mbid_mapping": {…}, "release_name": "Spaces", "recording_msid": "…",
///    "additional_info": {"duration_ms": 523000, "media_player": "Rhythmbox", "submission_client": "…"}}}
///   ```
/// - the older export (a download from the profile page): one JSON array of the same listens as the
///   API returns them, `[{"listened_at": 1612096440, "track_metadata": {…}, "recording_msid": "…",
///   "user_name": "…"}, …]`.
///
/// Of each listen: `listened_at` (Unix seconds, a fraction allowed), `track_metadata.artist_name`,
/// `track_name`, `release_name`, and from `additional_info` the duration (`duration_ms`, else
/// `duration` in seconds) and what tells a podcast episode from a song, since ListenBrainz has no
/// field for it: an `origin_url` or `spotify_id` that is a Spotify episode (`open.spotify.com/episode/…`,
/// `spotify:episode:…`), a `music_service` that is a podcast service's domain
/// (``podcastServices``), or a `media_player` or `music_service_name` that is a podcast app
/// (``podcastPlayers``). Everything else (MusicBrainz ids, the mapping, tags) is skipped unread.
///
/// Both shapes are streamed (a line, or an array element, at a time). A listen without
/// `listened_at`, `artist_name` or `track_name`, or a line that is not JSON (a truncated one), refuses
/// the file, naming the line.
public enum ListenBrainzExport {
    /// `music_service` domains of podcast services.
    public static let podcastServices: Set<String> = [
        "podcasts.apple.com", "pocketcasts.com", "podcasts.google.com", "overcast.fm", "castbox.fm", "podbean.com", "antennapod.org",
    ]
    /// `media_player` (or `music_service_name`) names of podcast apps, lowercased.
    public static let podcastPlayers: Set<String> = [
        "antennapod", "pocket casts", "podcast addict", "gpodder", "kasts", "overcast", "apple podcasts", "castro", "podverse", "castbox",
    ]

    /// Reads a ListenBrainz export file (JSON Lines, or a JSON array of listens).
    /// - Parameters:
    ///   - path: the file.
    ///   - name: its name, for errors.
    /// - Returns: its listens, in file order.
    /// - Throws: ``ImportError`` naming the file and the line.
    public static func read(path: String, name: String) throws(ImportError) -> ImportedData {
        guard let prefix = ExportKind.prefix(ofFile: path) else { throw ImportError(file: name, "cannot be read") }
        var data = ImportedData()
        var pool = StringPool()
        if prefix.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "[") {
            do {
                try withJSONFile(path) { parser in
                    try parser.beginArray()
                    var index = 0
                    while try parser.nextElement() {
                        _ = try parser.peekKind()
                        let line = parser.line
                        let fields = try Fields(&parser)
                        data.listens.append(try listen(fields, file: name, location: "listens[\(index)] (line \(line))", pool: &pool))
                        index += 1
                    }
                    try parser.finish()
                }
            } catch {
                throw ImportError(file: name, location: error.location, error.message)
            }
            return data
        }
        try forEachLine(path: path, name: name) { bytes, line throws(ImportError) in
            guard bytes.contains(where: { ![0x20, 0x09].contains($0) }) else { return }
            var parser = JSONPullParser(bytes: bytes)
            let fields: Fields
            do throws(JSONError) {
                _ = try parser.peekByteIsEnd()
                fields = try Fields(&parser)
                try parser.finish()
            } catch {
                let message = error.message.hasPrefix("the JSON ends early") ? "the line's JSON ends early (a truncated line)" : error.message
                throw ImportError(file: name, location: "line \(line)", message)
            }
            data.listens.append(try listen(fields, file: name, location: "line \(line)", pool: &pool))
        }
        return data
    }

    /// What a listen's JSON says, as read.
    struct Fields {
        var listenedAt: Double?
        var artist: String?
        var track: String?
        var release: String?
        var durationMs: Int64?
        var mediaPlayer: String?
        var musicService: String?
        var musicServiceName: String?
        var originURL: String?
        var spotifyID: String?

        /// Reads one listen object, skipping what is not needed.
        init(_ p: inout JSONPullParser) throws(JSONError) {
            try p.beginObject()
            while try p.nextKey() {
                if p.keyIs("listened_at") {
                    listenedAt = try Self.number(&p)
                } else if p.keyIs("track_metadata"), try p.peekKind() == .object {
                    try p.beginObject()
                    while try p.nextKey() {
                        if p.keyIs("artist_name") {
                            artist = try Self.string(&p)
                        } else if p.keyIs("track_name") {
                            track = try Self.string(&p)
                        } else if p.keyIs("release_name") {
                            release = try Self.string(&p)
                        } else if p.keyIs("additional_info"), try p.peekKind() == .object {
                            try readAdditionalInfo(&p)
                        } else {
                            try p.skipValue()
                        }
                    }
                } else {
                    try p.skipValue()
                }
            }
        }

        private mutating func readAdditionalInfo(_ p: inout JSONPullParser) throws(JSONError) {
            try p.beginObject()
            var seconds: Double?
            while try p.nextKey() {
                if p.keyIs("duration_ms") {
                    durationMs = try Self.number(&p).flatMap { $0 > 0 && $0 < 86_400_000 ? Int64($0) : nil }
                } else if p.keyIs("duration") {
                    seconds = try Self.number(&p)
                } else if p.keyIs("media_player") {
                    mediaPlayer = try Self.string(&p)
                } else if p.keyIs("music_service") {
                    musicService = try Self.string(&p)
                } else if p.keyIs("music_service_name") {
                    musicServiceName = try Self.string(&p)
                } else if p.keyIs("origin_url") {
                    originURL = try Self.string(&p)
                } else if p.keyIs("spotify_id") {
                    spotifyID = try Self.string(&p)
                } else {
                    try p.skipValue()
                }
            }
            if durationMs == nil, let seconds, seconds > 0, seconds < 86_400 { durationMs = Int64(seconds * 1000) }
        }

        /// A string's value; nil (and the value skipped) for anything else.
        private static func string(_ p: inout JSONPullParser) throws(JSONError) -> String? {
            guard try p.peekKind() == .string else { try p.skipValue(); return nil }
            return try p.readString()
        }

        /// A number's value, or a string's that holds one; nil (and the value skipped) otherwise.
        private static func number(_ p: inout JSONPullParser) throws(JSONError) -> Double? {
            switch try p.peekKind() {
            case .number: return try p.readDouble()
            case .string: return Double(try p.readString())
            default:
                try p.skipValue()
                return nil
            }
        }
    }

    /// The listen `fields` describe.
    /// - Throws: ``ImportError`` at `location` when a field the listen needs is missing or wrong.
    static func listen(_ fields: Fields, file: String, location: String, pool: inout StringPool) throws(ImportError) -> ImportedListen {
        func fail(_ message: String) -> ImportError { ImportError(file: file, location: location, message) }
        guard let at = fields.listenedAt else { throw fail("a listen without listened_at") }
        // From 1970 to the year 3000: anything else is not a time a listen was played.
        guard at.isFinite, at >= 0, at < 32_503_680_000 else { throw fail("listened_at \(at) is not a Unix time") }
        let artist = fields.artist?.trimmedEnds ?? ""
        let track = fields.track?.trimmedEnds ?? ""
        guard !artist.isEmpty else { throw fail("a listen without track_metadata.artist_name") }
        guard !track.isEmpty else { throw fail("a listen without track_metadata.track_name") }
        let album = fields.release?.trimmedEnds ?? ""
        return ImportedListen(startMs: Int64((at * 1000).rounded()), durationMs: fields.durationMs, artist: pool(artist), track: track,
                              album: pool(album), isPodcast: isPodcast(fields), format: "listenbrainz")
    }

    /// Whether the listen is a podcast episode (see the type's documentation for the rules).
    static func isPodcast(_ fields: Fields) -> Bool {
        for url in [fields.originURL, fields.spotifyID].compactMap({ $0?.lowercased() })
        where url.contains("spotify.com/episode/") || url.hasPrefix("spotify:episode:") {
            return true
        }
        if let service = fields.musicService?.lowercased(), podcastServices.contains(service) { return true }
        return [fields.mediaPlayer, fields.musicServiceName].contains { $0.map { podcastPlayers.contains($0.lowercased()) } ?? false }
    }
}
