import Foundation

/// What a media player says it is playing: MPRIS `Metadata`, as ``BusConnection/metadata(of:)`` decodes it.
struct PlayerTrack: Hashable, Sendable {
    /// `xesam:title`.
    var title: String
    /// `xesam:artist`, joined with ", ".
    var artist: String
    /// `xesam:album`.
    var album: String
    /// `mpris:artUrl`.
    var artURL: String
    /// `xesam:genre`.
    var genres: [String]
    /// `xesam:url`.
    var url: String
    /// `mpris:trackid`.
    var trackID: String
    /// `mpris:length`; `nil` when the player gives none (a stream, a player that does not know).
    var length: Duration?

    /// MPRIS's "no track" id.
    static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    /// Whether it is a track at all: a player with nothing loaded sends empty metadata (or only
    /// MPRIS's no-track id). A track has a title or a URL.
    var isTrack: Bool { !(title.isEmpty && url.isEmpty) && trackID != Self.noTrack }

    /// The title to show: the title, else the URL's file name without its extension.
    var displayTitle: String {
        if !title.isEmpty { return title }
        let file = URL(string: url)?.deletingPathExtension().lastPathComponent ?? url
        return file.isEmpty ? url : file
    }

    /// What tells one track from the next on the same player: the player's track id (when it has
    /// one), the title, artist, album and URL. A stream that changes its title (a radio's next song)
    /// is a new track; a length or artwork arriving late is not.
    var key: String { [trackID == Self.noTrack ? "" : trackID, title, artist, album, url].joined(separator: "\u{1F}") }

    /// Whether the URL names a video file (by its extension), which is not a song whoever sings in it.
    var isVideoFile: Bool {
        guard let path = URL(string: url)?.path, !path.isEmpty else { return false }
        return Self.videoExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    static let videoExtensions: Set<String> = ["mp4", "m4v", "mkv", "webm", "avi", "mov", "wmv", "flv", "mpg", "mpeg", "ogv", "ts",
                                               "3gp", "vob"]
}
