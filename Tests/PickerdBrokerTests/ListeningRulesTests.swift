import Foundation
@testable import PickerdBroker
import PickerdImport
import PickerdStore
import PickerdWire
import Testing

/// The listening rules as a pure function of what a player says and the time: no bus, no clock.
@Suite("Listening rules: when a play counts")
struct ListeningRulesTests {
    let start = SuspendingClock.now
    let wall = Date(timeIntervalSince1970: 1_800_000_000)

    func track(_ title: String, seconds: Int64?) -> PlayerTrack {
        PlayerTrack(title: title, artist: "Artist", album: "", artURL: "", genres: [], url: "", trackID: "",
                    length: seconds.map { .seconds($0) })
    }

    @Test("half the length or four minutes, whichever is less; never under the minimum; four minutes without a length")
    func thresholds() {
        let rules = ListeningRules()
        #expect(rules.threshold(length: .seconds(200)) == .seconds(100))
        #expect(rules.threshold(length: .seconds(3600)) == .seconds(240))
        #expect(rules.threshold(length: .seconds(29)) == nil)
        #expect(rules.threshold(length: .seconds(30)) == .seconds(15))
        #expect(rules.threshold(length: nil) == .seconds(240))
        #expect(ListeningRules(minimumTrack: .seconds(2)).threshold(length: .seconds(4)) == .seconds(2))
    }

    @Test("only time in Playing counts; the play is due once, at its threshold, dated when it started playing")
    func pausesDoNotCount() {
        var tracker = PlayTracker(rules: ListeningRules())
        let song = track("Song", seconds: 200)  // 100 s to count
        tracker.observe(track: song, status: .paused, now: start, wall: wall)
        #expect(tracker.deadline == nil)
        #expect(tracker.due(at: start + .seconds(500)) == nil, "paused from the start: nothing played")
        tracker.observe(track: song, status: .playing, now: start + .seconds(500), wall: wall.addingTimeInterval(500))
        #expect(tracker.deadline == start + .seconds(600))
        tracker.observe(track: song, status: .paused, now: start + .seconds(560), wall: wall.addingTimeInterval(560))
        #expect(tracker.due(at: start + .seconds(2000)) == nil, "60 s played, then a long pause")
        tracker.observe(track: song, status: .playing, now: start + .seconds(2000), wall: wall.addingTimeInterval(2000))
        #expect(tracker.deadline == start + .seconds(2040))
        #expect(tracker.due(at: start + .seconds(2039)) == nil)
        let play = tracker.due(at: start + .seconds(2040))
        #expect(play?.startedAt == wall.addingTimeInterval(500))
        #expect(tracker.due(at: start + .seconds(3000)) == nil, "once")
        #expect(tracker.deadline == nil)
    }

    @Test("another track, Stopped, or no track ends a play; a late length does not")
    func endings() {
        var tracker = PlayTracker(rules: ListeningRules())
        tracker.observe(track: track("One", seconds: nil), status: .playing, now: start, wall: wall)
        tracker.observe(track: track("One", seconds: 100), status: .playing, now: start + .seconds(10), wall: wall)
        #expect(tracker.deadline == start + .seconds(50), "the same play, its length known now")
        tracker.observe(track: track("Two", seconds: 100), status: .playing, now: start + .seconds(40), wall: wall)
        #expect(tracker.due(at: start + .seconds(60)) == nil, "Two has played 20 s")
        #expect(tracker.due(at: start + .seconds(90))?.track.title == "Two")
        tracker.observe(track: track("Two", seconds: 100), status: .stopped, now: start + .seconds(95), wall: wall)
        #expect(tracker.play == nil)
        tracker.observe(track: track("Two", seconds: 100), status: .playing, now: start + .seconds(100), wall: wall)
        #expect(tracker.due(at: start + .seconds(150))?.track.title == "Two", "played again after a stop: a new play")
        tracker.observe(track: PlayerTrack(title: "", artist: "", album: "", artURL: "", genres: [], url: "", trackID: "", length: nil),
                        status: .playing, now: start + .seconds(160), wall: wall)
        #expect(tracker.play == nil)
        tracker.observe(track: track("Jingle", seconds: 10), status: .playing, now: start + .seconds(200), wall: wall)
        #expect(tracker.deadline == nil, "under the minimum: never")
        #expect(tracker.due(at: start + .seconds(900)) == nil, "under the minimum: never")
    }

    @Test("a track first seen mid-play counts what it has played already, and dates from then")
    func midTrack() {
        var tracker = PlayTracker(rules: ListeningRules())
        tracker.observe(track: track("Long", seconds: 600), status: .playing, now: start, wall: wall, alreadyPlayed: .seconds(250))
        let play = tracker.due(at: start)
        #expect(play?.startedAt == wall.addingTimeInterval(-250))
    }

    @Test("a song, a podcast, or generic media, by genre, artist, file and app")
    func kinds() {
        let player = PlayerApp(busName: "org.mpris.MediaPlayer2.player", identity: "Player", desktop: nil)
        var song = track("Song", seconds: 100)
        #expect(ListenedItem.kind(of: song, app: player) == .song)
        song.genres = ["Technology", "podcast"]
        #expect(ListenedItem.kind(of: song, app: player) == .podcast)
        var clip = track("Clip", seconds: 100)
        clip.url = "file:///home/someone/Videos/clip.MKV"
        #expect(ListenedItem.kind(of: clip, app: player) == .media)
        let browser = PlayerApp(busName: "org.mpris.MediaPlayer2.firefox.instance_1_42", identity: "Firefox",
                                desktop: DesktopApp(id: "firefox", name: "Firefox", categories: ["Network", "WebBrowser"], keywords: []))
        #expect(ListenedItem.kind(of: track("Video", seconds: 100), app: browser) == .media)
        let gpodder = PlayerApp(busName: "org.mpris.MediaPlayer2.gpodder", identity: "gPodder", desktop: nil)
        #expect(ListenedItem.kind(of: track("Episode", seconds: 100), app: gpodder) == .podcast)
        var noArtist = track("Thing", seconds: 100)
        noArtist.artist = ""
        #expect(ListenedItem.kind(of: noArtist, app: player) == .media)
    }

    @Test("a .desktop file's entry group, localized keys aside")
    func desktopFile() {
        let fields = DesktopApp.parse("""
            # comment
            [Desktop Entry]
            Name=Reader
            Name[fr]=Lecteur
            Icon = reader
            Categories=Office;Literature;
            [Desktop Action New]
            Name=New Window
            """)
        #expect(fields["Name"] == "Reader")
        #expect(fields["Icon"] == "reader")
        #expect(fields["Categories"] == "Office;Literature;")
    }

    @Test("image headers: PNG, JPEG and GIF sizes")
    func imageHeaders() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 1, 0, 0, 0, 0, 64]
        #expect(ImageHeader(png)?.contentType == "image/png")
        #expect(ImageHeader(png)?.width == 256)
        #expect(ImageHeader(png)?.height == 64)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8, 0, 30, 0, 40, 3, 0, 0, 0, 0]
        #expect(ImageHeader(jpeg)?.contentType == "image/jpeg")
        #expect(ImageHeader(jpeg)?.width == 40)
        #expect(ImageHeader(jpeg)?.height == 30)
        #expect(ImageHeader(Array("GIF89a".utf8) + [10, 0, 5, 0])?.width == 10)
        #expect(ImageHeader(Array("not an image".utf8)) == nil)
    }

    @Test("a song recorded live has the id its scrobble in a ListenBrainz or Last.fm export has; a video keeps its player's")
    func sameListenOneItem() {
        let app = PlayerApp(busName: "org.mpris.MediaPlayer2.music", identity: "Music", desktop: nil)
        let song = PlayerTrack(title: "Harbor  Lights", artist: "The Tideline", album: "Coast", artURL: "", genres: [], url: "", trackID: "",
                               length: .seconds(200))
        let live = ListenedItem(track: song, startedAt: wall, app: app).item
        #expect(live.id == ExportItems.listenID(artist: "the tideline", track: "Harbor Lights", startMs: wall.unixMs + 30_000),
                "same artist and track (folded), same minute")
        #expect(live.id != ExportItems.listenID(artist: "The Tideline", track: "Harbor Lights", startMs: wall.unixMs + 60_000))
        let video = PlayerTrack(title: "Clip", artist: "", album: "", artURL: "", genres: [], url: "file:///v/clip.mp4", trackID: "",
                                length: .seconds(200))
        #expect(ListenedItem(track: video, startedAt: wall, app: app).item.id != ExportItems.listenID(artist: "", track: "Clip", startMs: wall.unixMs))
    }
}
