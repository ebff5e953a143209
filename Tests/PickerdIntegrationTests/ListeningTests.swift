import Foundation
import Glibc
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Live listening capture through a real pickerd: a private session bus, stand-in MPRIS players
/// (Tools/TestSupport/mpris-player) driven line by line, and the store read as pickerd wrote it.
///
/// Tracks that must count are a few seconds long, with pickerd's minimum track length lowered to
/// two seconds; tracks that must not count are an hour long (four minutes to count), so no slow
/// machine can make them count by accident. Tests wait on what pickerd did (its store, its log),
/// never on the clock going fast enough.
@Suite("Listening, live: what is played on the session bus becomes songs, podcasts and media", .serialized)
struct ListeningTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    @Test("a song played past half its length is recorded then, once, with its artist, album and artwork, and reaches an app through the picker")
    func song() throws {
        let world = try ListeningWorld(script: #"{"reviews": [{"title": "Music by The Stand-ins"}]}"#)
        let artwork = world.directory + "/cover art.png"
        try MediaFixtures.png(at: artwork, width: 40, height: 30, seed: 3)
        let player = try world.player("standin")
        let before = Date().unixMs
        try player.play(["xesam:title": "Tuesday Song", "xesam:artist": ["The Stand-ins"], "xesam:album": "Test Pressing",
                         "mpris:length": 4_000_000, "mpris:trackid": "/org/example/track/1",
                         "mpris:artUrl": "file://" + artwork.replacingOccurrences(of: " ", with: "%20")])
        // Recorded while the track still plays: nothing else happens on the bus after "play".
        let item = try #require(world.item { if case .song(let s) = $0.asset { s.song == "Tuesday Song" } else { false } },
                                "no song was recorded: \(world.pickerd.logText)")
        guard case .song(let song) = item.asset else { return }
        #expect(song.artist == "The Stand-ins")
        #expect(song.album == "Test Pressing")
        #expect(item.source == "listening")
        #expect(item.startMs >= before - 1000, "dated when it started playing")
        #expect(item.startMs <= Date().unixMs, "dated when it started playing")
        #expect(song.date?.unixMs == item.startMs)
        let art = try #require(song.artwork, "the song has its artwork")
        #expect(art.contentType == "image/png")
        #expect(art.pixelWidth == 40)
        #expect(art.pixelHeight == 30)
        let stored = try #require(item.media.first)
        #expect(!stored.isPersonsFile, "artwork is copied into the store")
        #expect(FileManager.default.contents(atPath: world.store.path(of: stored)) == FileManager.default.contents(atPath: artwork))

        // Paused and played on, the same play is not recorded again.
        try player.send("pause")
        try player.send("resume")
        #expect(world.saw("standin", "Playing", "Tuesday Song", times: 2))
        Thread.sleep(forTimeInterval: 2.5)  // past the threshold again: a second record would show by now
        #expect(world.pickerd.logText.components(separatedBy: "title=Tuesday Song [PickerdBroker] listened").count == 2,
                "recorded once: \(world.pickerd.logText)")
        #expect(try world.listened().count == 1)
        let stats = try world.pickerd.ctl(["library", "stats"])
        #expect(stats.stdout.split(separator: "\n").contains { $0.hasPrefix("song ") && $0.hasSuffix(" 1") }, "\(stats.stdout)")

        // The rest of the album, played through: a week's listening is a suggestion of its own only
        // when it stands out (issue 42), and an album played through does.
        for track in 2...5 {
            try player.play(["xesam:title": "Track \(track)", "xesam:artist": ["The Stand-ins"], "xesam:album": "Test Pressing",
                             "mpris:length": 4_000_000, "mpris:trackid": "/org/example/track/\(track)"])
            _ = try #require(world.item { if case .song(let s) = $0.asset { s.song == "Track \(track)" } else { false } },
                             "track \(track) was not recorded: \(world.pickerd.logText.suffix(2000))")
        }

        // Through the picker: the week's "Music by The Stand-ins" moment, approved, carries the songs and the artwork.
        let approved = try testClient(world.pickerd, "present")
        #expect(approved.last?["result"] as? String == "approved", "\(approved.last ?? [:]) \(world.pickerd.logText.suffix(2000))")
        let suggestion = try #require(approvedSuggestion(approved))
        let released = suggestion.items.compactMap { item -> Song? in if case .song(let s)? = item.asset { s } else { nil } }
        #expect(released.map(\.song).sorted() == ["Track 2", "Track 3", "Track 4", "Track 5", "Tuesday Song"])
        let files = (approved.last?["descriptors"] as? [[String: Any]] ?? []).compactMap { ($0["base64"] as? String).flatMap { Data(base64Encoded: $0) } }
        #expect(files == [FileManager.default.contents(atPath: artwork)!], "the artwork's bytes reach the app")
        #expect(world.pickerd.stop() == 0)
    }

    @Test("a skipped song and a track shorter than the minimum are not recorded; the next song is")
    func skipped() throws {
        let world = try ListeningWorld()
        let player = try world.player("standin")
        // One second long, under the two-second minimum: never, however long it plays.
        try player.play(["xesam:title": "Jingle", "xesam:artist": ["Station"], "mpris:length": 1_000_000])
        #expect(world.saw("standin", "Playing", "Jingle"))
        Thread.sleep(forTimeInterval: 2)
        // An hour long: four minutes to count, and it is skipped long before.
        try player.play(["xesam:title": "An Hour Long", "xesam:artist": ["The Stand-ins"], "mpris:length": 3_600_000_000])
        #expect(world.saw("standin", "Playing", "An Hour Long"))
        try player.play(["xesam:title": "Short Song", "xesam:artist": ["The Stand-ins"], "mpris:length": 4_000_000])
        #expect(world.item { if case .song(let s) = $0.asset { s.song == "Short Song" } else { false } } != nil, "\(world.pickerd.logText)")
        let titles = try world.listened().map { item -> String in if case .song(let s) = item.asset { s.song } else { "?" } }
        #expect(titles == ["Short Song"])
        #expect(world.pickerd.stop() == 0)
    }

    @Test("a paused track does not accrue: it counts only once it has played long enough, and is dated when it started playing")
    func paused() throws {
        let world = try ListeningWorld()
        let player = try world.player("standin")
        // Six seconds long: three seconds of play to count. Loaded paused, and left so for longer than that.
        try player.load(["xesam:title": "Paused Song", "xesam:artist": ["The Stand-ins"], "mpris:length": 6_000_000])
        #expect(world.saw("standin", "Paused", "Paused Song"))
        Thread.sleep(forTimeInterval: 4.5)
        #expect(try world.listened().isEmpty, "time in Paused counted: \(world.pickerd.logText)")
        let resumed = Date()
        try player.send("resume")
        let item = try #require(world.item { _ in true }, "\(world.pickerd.logText)")
        #expect(Date().timeIntervalSince(resumed) >= 2.9, "recorded after three seconds of play, not before")
        #expect(item.startMs >= resumed.unixMs - 1000, "dated when it started playing, not when it was loaded")
        #expect(world.pickerd.stop() == 0)
    }

    @Test("a podcast episode is recorded as a Podcast: by its genre, or by its app's .desktop file")
    func podcast() throws {
        let world = try ListeningWorld(desktopFiles: ["org.example.Podcatcher": """
            [Desktop Entry]
            Type=Application
            Name=Podcatcher
            Exec=podcatcher
            Categories=AudioVideo;Audio;Player;
            Keywords=Podcast;Episodes;
            """])
        let cover = world.directory + "/show.jpg"
        try MediaFixtures.jpeg(at: cover, width: 48, height: 48, seed: 5)
        let generic = try world.player("standin")
        try generic.play(["xesam:title": "Episode 12: Bees", "xesam:album": "Garden Talk", "xesam:artist": ["A Host"],
                          "xesam:genre": ["Podcast"], "mpris:length": 4_000_000, "mpris:artUrl": "file://" + cover])
        let episode = try #require(world.item { if case .podcast(let p) = $0.asset { p.episode == "Episode 12: Bees" } else { false } },
                                   "\(world.pickerd.logText)")
        guard case .podcast(let podcast) = episode.asset else { return }
        #expect(podcast.show == "Garden Talk")
        #expect(podcast.artwork?.contentType == "image/jpeg")
        #expect(podcast.artwork?.pixelWidth == 48)
        #expect(FileManager.default.contents(atPath: world.store.path(of: episode.media[0])) == FileManager.default.contents(atPath: cover))

        // No genre, but a podcast app by its .desktop Keywords; no album, so the show is the artist.
        let app = try world.player("podcatcher", ["--desktop-entry", "org.example.Podcatcher"])
        try app.play(["xesam:title": "Episode 3: Moss", "xesam:artist": ["Forest Radio"], "mpris:length": 4_000_000])
        let other = try #require(world.item { if case .podcast(let p) = $0.asset { p.episode == "Episode 3: Moss" } else { false } },
                                 "\(world.pickerd.logText)")
        if case .podcast(let p) = other.asset { #expect(p.show == "Forest Radio") }
        #expect(try world.listened().allSatisfy { $0.kind == .podcast })
        #expect(world.pickerd.stop() == 0)
    }

    @Test("what is not music is Generic Media, with the app's name and icon from its .desktop file")
    func genericMedia() throws {
        let world = try ListeningWorld(desktopFiles: ["org.example.Reader": """
            [Desktop Entry]
            Type=Application
            Name=Example Reader
            Name[fr]=Lecteur d'exemple
            Icon=org.example.Reader
            Categories=Office;Literature;
            """])
        let icon = world.share + "/icons/hicolor/128x128/apps/org.example.Reader.png"
        try FileManager.default.createDirectory(atPath: (icon as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try MediaFixtures.png(at: icon, width: 128, height: 128, seed: 7)

        let reader = try world.player("reader", ["--desktop-entry", "org.example.Reader"])
        try reader.play(["xesam:title": "Chapter 3: The Lighthouse", "xesam:artist": ["A. R. Writer"], "mpris:length": 4_000_000])
        let chapter = try #require(world.item { if case .genericMedia(let g) = $0.asset { g.title == "Chapter 3: The Lighthouse" } else { false } },
                                   "\(world.pickerd.logText)")
        guard case .genericMedia(let media) = chapter.asset else { return }
        #expect(media.artist == "A. R. Writer")
        #expect(media.album == "Example Reader", "the app's name, from its .desktop file")
        let appIcon = try #require(media.appIcon)
        #expect(appIcon.filename == "org.example.Reader.png")
        #expect(appIcon.contentType == "image/png")
        #expect(appIcon.pixelWidth == 128)
        #expect(FileManager.default.contents(atPath: world.store.path(of: chapter.media[0])) == FileManager.default.contents(atPath: icon))

        // A video file with no artist, from a player with no .desktop file: its Identity names it.
        let viewer = try world.player("viewer", ["--identity", "Clip Viewer"])
        try viewer.play(["xesam:title": "Holiday clip", "xesam:url": "file:///home/someone/Videos/holiday.mp4", "mpris:length": 4_000_000])
        let clip = try #require(world.item { if case .genericMedia(let g) = $0.asset { g.title == "Holiday clip" } else { false } },
                                "\(world.pickerd.logText)")
        if case .genericMedia(let g) = clip.asset {
            #expect(g.album == "Clip Viewer")
            #expect(g.artist.isEmpty)
            #expect(g.appIcon == nil)
        }
        #expect(world.pickerd.stop() == 0)
    }

    @Test("a player that vanishes mid-track, one that does not answer, and a bus that goes away leave pickerd serving")
    func misbehaving() throws {
        let world = try ListeningWorld()
        // Owns its name and answers nothing.
        let broken = try world.player("broken", ["--broken"])
        try broken.play(["xesam:title": "Nothing", "mpris:length": 4_000_000])
        let flaky = try world.player("flaky")
        try flaky.play(["xesam:title": "Cut Short", "xesam:artist": ["The Stand-ins"], "mpris:length": 3_600_000_000])
        #expect(world.saw("flaky", "Playing", "Cut Short"))
        flaky.kill()
        #expect(eventually(timeout: 30) { world.pickerd.logText.contains("name=org.mpris.MediaPlayer2.flaky player=Stand-in Player playing=Cut Short [PickerdBroker] a player left") },
                "\(world.pickerd.logText)")
        #expect(try world.pickerd.ctl(["status"]).status == 0)

        // pickerd follows on: another player's song is recorded.
        let steady = try world.player("steady")
        try steady.play(["xesam:title": "Still Here", "xesam:artist": ["The Stand-ins"], "mpris:length": 4_000_000])
        #expect(world.item { if case .song(let s) = $0.asset { s.song == "Still Here" } else { false } } != nil, "\(world.pickerd.logText)")
        #expect(try world.listened().count == 1, "nothing from the vanished or the broken player")
        let complaints = world.pickerd.logText.components(separatedBy: "does not answer as MPRIS says").count - 1
        #expect(complaints == 1, "the broken player is logged once: \(world.pickerd.logText)")

        // The bus goes: logged, and pickerd serves on.
        world.bus = nil
        #expect(eventually(timeout: 30) { world.pickerd.logText.contains("listening paused") }, "\(world.pickerd.logText)")
        #expect(try world.pickerd.ctl(["status"]).status == 0)
        #expect(world.pickerd.stop() == 0)
    }
}

/// A pickerd following a private session bus, with the `.desktop` files a test gives in a
/// temporary `$XDG_DATA_DIRS`, and the store it writes, read as it is.
final class ListeningWorld {
    let directory: String
    /// `$XDG_DATA_DIRS` for pickerd: `applications/` and `icons/` go here.
    var share: String { directory + "/share" }
    /// The bus; set to `nil` to take it away.
    var bus: SessionBus?
    let pickerd: RunningPickerd
    let store: Store
    private var players: [StandInPlayer] = []
    private let temporary: TemporaryDirectory

    /// - Parameters:
    ///   - script: the scripted picker's decisions; with one, the test client is registered.
    ///   - desktopFiles: `.desktop` files by id, written into `share/applications/`.
    init(script: String? = nil, desktopFiles: [String: String] = [:]) throws {
        temporary = try TemporaryDirectory(prefix: "pkd-l")
        directory = temporary.path
        try FileManager.default.createDirectory(atPath: directory + "/share/applications", withIntermediateDirectories: true)
        for (id, text) in desktopFiles {
            try text.write(toFile: "\(directory)/share/applications/\(id).desktop", atomically: true, encoding: .utf8)
        }
        let bus = try SessionBus(directory: directory)
        self.bus = bus
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-lp")
        var extra = ["--session-bus", bus.address, "--listening-minimum-track", "2", "--log-level", "debug"]
        if let script {
            try script.write(toFile: root + "/script.json", atomically: true, encoding: .utf8)
            extra += ["--agent-command", "\(BuiltProducts.url("picker-agent").path) --script \(root)/script.json"]
        }
        // The bus by flag, not by environment: the host's own bus (if any) is never followed, and
        // taking the test bus away does not take pickerd with it. XDG_DATA_HOME is empty on purpose.
        pickerd = try RunningPickerd(seed: false, root: root, extra: extra,
                                     environment: ["XDG_DATA_DIRS": directory + "/share", "XDG_DATA_HOME": directory + "/home-share"])
        store = try Store(dataDirectory: pickerd.data)
        if script != nil {
            let file = root + "/app.entitlements"
            try Entitlements.allowed.write(toFile: file, atomically: true, encoding: .utf8)
            let r = try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("pickerd-test-client").path,
                                     "--entitlements", file, "--bundle-id", "com.example.test", "--name", "Test App"])
            #expect(r.status == 0, "register: \(r.stderr)")
        }
    }

    /// A stand-in player `org.mpris.MediaPlayer2.<name>` on the bus, once pickerd has seen it.
    func player(_ name: String, _ arguments: [String] = []) throws -> StandInPlayer {
        let player = try StandInPlayer(name, bus: try #require(bus).address, arguments: arguments)
        players.append(player)
        let seen = eventually(timeout: 60) {
            pickerd.logText.split(separator: "\n").contains { $0.contains("name=org.mpris.MediaPlayer2.\(name) ") && $0.hasSuffix("a player is here") }
        }
        #expect(seen, "pickerd never saw \(name): \(pickerd.logText)")
        return player
    }

    /// Whether pickerd has said (in its debug log), `times` times, that `player` is in `status` playing `title`.
    func saw(_ player: String, _ status: String, _ title: String, times: Int = 1) -> Bool {
        let line = "name=org.mpris.MediaPlayer2.\(player) status=\(status) title=\(title) [PickerdBroker] player state"
        let seen = eventually(timeout: 60) { pickerd.logText.components(separatedBy: line).count - 1 >= times }
        return seen
    }

    /// The items pickerd recorded from listening.
    func listened() throws -> [LibraryItem] {
        try store.items().filter { $0.source == "listening" }
    }

    /// The first recorded item that `matches`, once there (a generous wait: a loaded machine is slow).
    func item(_ matches: (LibraryItem) -> Bool) -> LibraryItem? {
        var found: LibraryItem?
        _ = eventually(timeout: 90) {
            found = (try? listened())?.first(where: matches)
            return found != nil
        }
        return found
    }

    deinit {
        for player in players { player.kill() }
    }
}

/// Tools/TestSupport/mpris-player on a bus, driven through its standard input: each command is
/// sent once the previous one was applied (its "done" line read).
final class StandInPlayer {
    let name: String
    private let process = Process()
    private let input: FileHandle
    private let output: Int32
    private var pending = [UInt8]()

    init(_ name: String, bus: String, arguments: [String] = []) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["Tools/TestSupport/mpris-player".absolutePath, name] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus]) { $1 }
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading.fileDescriptor
        let ready = line()
        guard ready == "ready" else {
            kill()
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "mpris-player \(name) did not start: \(ready ?? "nothing")"])
        }
    }

    /// The next line it prints, `nil` when it ends or says nothing for a minute.
    private func line() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return text
            }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 60_000) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(output, &buffer, buffer.count)
            guard n > 0 else { return nil }
            pending += buffer[..<n]
        }
    }

    /// Sends a command and waits until the player says it was applied.
    /// - Throws: when it did not.
    func send(_ command: String) throws {
        try input.write(contentsOf: Data((command + "\n").utf8))
        let verb = String(command.prefix { $0 != " " })
        let answer = line()
        guard answer == "done \(verb)" else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "mpris-player \(name): \(command): \(answer ?? "no answer")"])
        }
    }

    /// A new track, playing.
    func play(_ metadata: [String: Any]) throws { try send("play " + Self.json(metadata)) }
    /// A new track, paused.
    func load(_ metadata: [String: Any]) throws { try send("load " + Self.json(metadata)) }

    private static func json(_ metadata: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: metadata, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Ends it at once (SIGKILL: the test runner blocks SIGTERM, and children inherit the mask).
    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { kill() }
}
