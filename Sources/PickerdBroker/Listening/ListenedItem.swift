import Foundation
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdWire

/// A player as the listening service knows it: its MPRIS name and what its application is.
struct PlayerApp: Hashable, Sendable {
    /// Its name on the bus ("org.mpris.MediaPlayer2.vlc").
    var busName: String
    /// Its MPRIS `Identity` ("VLC media player"), empty when it gave none.
    var identity: String
    /// Its `.desktop` file, when its MPRIS `DesktopEntry` (or its bus name) leads to one.
    var desktop: DesktopApp?

    /// Its name for people: the `.desktop` file's `Name=`, else `Identity`, else the end of its bus name.
    var name: String {
        if let desktop { return desktop.name }
        if !identity.isEmpty { return identity }
        return String(busName.dropFirst(BusConnection.playerPrefix.count))
    }

    /// Whether it plays podcasts: its `.desktop` file says so, or it is a known podcast app.
    var isPodcastApp: Bool {
        if desktop?.isPodcastApp == true { return true }
        let suffix = busName.dropFirst(BusConnection.playerPrefix.count).lowercased()
        return DesktopApp.podcastApps.contains(suffix) || DesktopApp.podcastApps.contains(suffix.split(separator: ".").first.map(String.init) ?? "")
    }
}

/// A play that counted, as a library item: a Song, a Podcast or a GenericMedia, with the files it
/// brings into the store's media directory (artwork, an app icon).
///
/// - **Podcast** when the track's `xesam:genre` says "Podcast", or the app is a podcast app (its
///   `.desktop` file's Categories or Keywords say so, or it is a known one): episode = title,
///   show = album, else artist.
/// - **Song** when the track names an artist, is not a video file, and the app is not a web
///   browser, a video player or a book reader by its `.desktop` Categories: song, artist, album.
/// - **GenericMedia** otherwise (a video, a book, anything without an artist): title, artist,
///   album (the app's name when the track has none, so the item says where it was played), and
///   the app's icon from its `.desktop` file.
///
/// Artwork comes only from a `file://` `mpris:artUrl` naming a readable image of at most 5 MB; it
/// is copied into the store. Nothing is ever fetched from the network. The item's date is when the
/// track started playing; its id is a hash of the player, the track and that minute, so the same
/// play recorded twice (a restart) is one item.
struct ListenedItem {
    /// A file to write below the media directory.
    struct File {
        var media: StoredMedia
        var bytes: [UInt8]
    }

    /// The item's `source`.
    static let source = "listening"
    /// The largest artwork file taken.
    static let maximumArtworkBytes = 5 << 20

    var item: LibraryItem
    var files: [File]

    /// What kind of item a play becomes.
    enum Kind: String {
        case song, podcast, media
    }

    /// The kind `track` played by `app` is (see the type's rules).
    static func kind(of track: PlayerTrack, app: PlayerApp) -> Kind {
        if track.genres.contains(where: { $0.range(of: "podcast", options: .caseInsensitive) != nil }) || app.isPodcastApp {
            return .podcast
        }
        if !track.artist.isEmpty, !track.isVideoFile, app.desktop?.isNotAMusicPlayer != true { return .song }
        return .media
    }

    /// The item for a play.
    /// - Parameters:
    ///   - track: what was played.
    ///   - startedAt: when it started playing.
    ///   - app: the player.
    init(track: PlayerTrack, startedAt: Date, app: PlayerApp) {
        let startMs = startedAt.unixMs
        // A song or podcast with an artist has the id an export's listen of it has (ListenBrainz or
        // Last.fm scrobbling the same play): one item, not two. Anything else is keyed by its player.
        let kind = Self.kind(of: track, app: app)
        let id = kind != .media && !track.artist.isEmpty
            ? ExportItems.listenID(artist: track.artist, track: track.displayTitle, startMs: startMs)
            : SuggestionBuilder.stableID("listening|\(app.busName)|\(track.key)|\(startMs / 60_000)")
        let date = Timestamp(unixMs: startMs)
        let title = track.displayTitle
        var files: [File] = []
        let asset: Item.Asset
        switch kind {
        case .song:
            let artwork = Self.artwork(track)
            files += artwork.map { [$0] } ?? []
            asset = .song(Song(song: title, artist: track.artist, album: track.album, artwork: artwork?.media.media(slot: 0), date: date))
        case .podcast:
            let artwork = Self.artwork(track)
            files += artwork.map { [$0] } ?? []
            asset = .podcast(Podcast(episode: title, show: track.album.isEmpty ? track.artist : track.album,
                                     artwork: artwork?.media.media(slot: 0), date: date))
        case .media:
            let icon = Self.icon(app)
            files += icon.map { [$0] } ?? []
            asset = .genericMedia(GenericMedia(title: title, artist: track.artist, album: track.album.isEmpty ? app.name : track.album,
                                               date: date, appIcon: icon?.media.media(slot: 0)))
        }
        item = LibraryItem(id: id, asset: asset, media: files.map(\.media), startMs: startMs, source: Self.source)
        self.files = files
    }

    /// The track's artwork, when `mpris:artUrl` is a `file://` URL of a readable image.
    static func artwork(_ track: PlayerTrack) -> File? {
        guard let url = URL(string: track.artURL), url.scheme?.lowercased() == "file", (url.host ?? "").isEmpty || url.host == "localhost",
              case let path = url.path, path.hasPrefix("/"),
              let bytes = BoundedFile.read(path, limit: maximumArtworkBytes), let header = ImageHeader(bytes) else { return nil }
        let base = (track.album.isEmpty ? track.displayTitle : track.album).filter { $0 != "/" && !$0.isNewline }
        return File(media: StoredMedia(relativePath: "listening/artwork/\(hash(bytes)).\(header.fileExtension)", contentType: header.contentType,
                                       filename: "\(base.isEmpty ? "artwork" : String(base.prefix(60))).\(header.fileExtension)",
                                       byteCount: UInt64(bytes.count), pixelWidth: header.width, pixelHeight: header.height),
                    bytes: bytes)
    }

    /// The app's icon (a PNG its `.desktop` file leads to), offered as "<desktop id>.png".
    static func icon(_ app: PlayerApp) -> File? {
        guard let desktop = app.desktop, let path = desktop.iconPath,
              let bytes = BoundedFile.read(path, limit: DesktopApp.maximumIconBytes), let header = ImageHeader(bytes) else { return nil }
        return File(media: StoredMedia(relativePath: "listening/icons/\(hash(bytes)).png", contentType: header.contentType,
                                       filename: "\(desktop.id).png", byteCount: UInt64(bytes.count),
                                       pixelWidth: header.width, pixelHeight: header.height),
                    bytes: bytes)
    }

    /// A file's name in the store: 64-bit FNV-1a of its bytes, in hex (the same picture is stored once).
    static func hash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
