import Foundation
import Logging
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdWire
import Synchronization

/// Live listening capture: follows every media player on the person's session bus (MPRIS,
/// `org.mpris.MediaPlayer2.*`), and records what was actually listened to, as scrobblers do, into
/// the library as Song, Podcast or GenericMedia items (``ListenedItem``), by ``ListeningRules``.
///
/// One thread of its own holds the bus connection (``BusConnection``): it reads each player's
/// metadata and status when it appears and when it says they changed, runs each player's
/// ``PlayTracker`` on the monotonic clock, wakes when a play is due to cross its threshold, and
/// writes the item then (the store, then the moments of the touched week).
///
/// It never breaks pickerd: no bus, a bus that goes away, a player that does not answer (two
/// seconds at most) or sends nonsense: each is logged once and the service goes on, reconnecting
/// with a backoff from one second to a minute.
final class ListeningService: Sendable {
    private let address: String
    private let rules: ListeningRules
    private let store: Store
    private let builder: SuggestionBuilder
    private let clock: PickerdClock
    private let logger: Logger
    private let dataDirectories: [String]
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)

    /// The longest the thread waits before looking at its stop flag again.
    static let tick: Duration = .seconds(1)
    /// The first and the longest pause before connecting again.
    static let backoff = (first: 1.0, most: 60.0)

    /// A service for the bus at `address`.
    /// - Parameters:
    ///   - address: the session bus's address.
    ///   - rules: when a play counts.
    ///   - store: where items go.
    ///   - builder: the moments builder the broker uses.
    ///   - clock: the wall clock items are dated by.
    ///   - logger: where what happens is said.
    ///   - environment: where `.desktop` files are looked for (`XDG_DATA_HOME`, `XDG_DATA_DIRS`, `HOME`).
    init(address: String, rules: ListeningRules, store: Store, builder: SuggestionBuilder, clock: PickerdClock, logger: Logger,
         environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.address = address
        self.rules = rules
        self.store = store
        self.builder = builder
        self.clock = clock
        self.logger = logger.with(["listening": "\(address)"])
        dataDirectories = DesktopApp.dataDirectories(environment)
    }

    /// Starts the service's thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "pickerd-listening"
        thread.start()
    }

    /// Stops the thread (within a second).
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Connects, follows the players until the bus goes, and again, with a backoff, until stopped.
    private func run() {
        var pause = Self.backoff.first
        var quiet = false  // a failure was logged: say nothing more until a connection works
        while !isStopped {
            do {
                let bus = try BusConnection(address: address)
                try bus.watchPlayers()
                logger.info("following media players on the session bus")
                quiet = false
                pause = Self.backoff.first
                var session = Session(bus: bus, service: self)
                try session.run()
            } catch {
                if !quiet {
                    logger.notice("listening paused: \(error); trying again, quietly, for as long as pickerd runs")
                    quiet = true
                } else {
                    logger.debug("listening: \(error)")
                }
            }
            guard !isStopped else { break }
            _ = wake.wait(timeout: .now() + pause)
            pause = min(pause * 2, Self.backoff.most)
        }
    }

    /// One connection's worth of following: the players on the bus and their plays.
    private struct Session {
        struct Player {
            var owner: String
            var app: PlayerApp
            var tracker: PlayTracker
        }

        let bus: BusConnection
        let service: ListeningService
        var players: [String: Player] = [:]
        /// Players whose failure was logged (each is logged once per connection).
        var complained: Set<String> = []

        init(bus: BusConnection, service: ListeningService) {
            self.bus = bus
            self.service = service
        }

        /// Follows the players until the service stops (returns) or the bus goes (throws).
        mutating func run() throws(BusError) {
            for name in try bus.names(prefix: BusConnection.playerPrefix) {
                guard let owner = try bus.owner(of: name) else { continue }
                appeared(name, owner: owner, midTrack: true)
            }
            while !service.isStopped {
                var timeout = ListeningService.tick
                let now = SuspendingClock.now
                for player in players.values {
                    if let deadline = player.tracker.deadline { timeout = min(timeout, max(.zero, deadline - now)) }
                }
                let (events, overflowed) = try bus.step(timeout: timeout)
                if overflowed {
                    for name in players.keys { refresh(name) }
                } else {
                    for event in events { handle(event) }
                }
                recordDue()
            }
        }

        mutating func handle(_ event: BusEvent) {
            switch event {
            case .ownerChanged(let name, let oldOwner, let newOwner):
                if !oldOwner.isEmpty, let player = players.removeValue(forKey: name) {
                    service.logger.info("a player left", metadata: ["player": "\(player.app.name)", "name": "\(name)",
                                                                    "playing": "\(player.tracker.play?.track.displayTitle ?? "")"])
                }
                if !newOwner.isEmpty { appeared(name, owner: newOwner, midTrack: false) }
            case .playerChanged(let sender, _, _):
                for (name, player) in players where player.owner == sender { refresh(name) }
            }
        }

        /// A player that is there: what it is (its `.desktop` file), and what it is playing.
        /// `midTrack`: pickerd has just connected, so a track under way has played up to its position.
        mutating func appeared(_ name: String, owner: String, midTrack: Bool) {
            let identity = (try? bus.string("Identity", interface: BusConnection.rootInterface, of: name)) ?? ""
            let entry = (try? bus.string("DesktopEntry", interface: BusConnection.rootInterface, of: name)) ?? ""
            let suffix = String(name.dropFirst(BusConnection.playerPrefix.count))
            // Without a DesktopEntry, players are usually named for their desktop file ("vlc").
            let directories = service.dataDirectories
            let desktop = [entry, suffix, suffix.split(separator: ".").first.map(String.init) ?? ""].lazy
                .filter { !$0.isEmpty }.compactMap { DesktopApp.find($0, in: directories) }.first
            let app = PlayerApp(busName: name, identity: identity, desktop: desktop)
            players[name] = Player(owner: owner, app: app, tracker: PlayTracker(rules: service.rules))
            service.logger.info("a player is here", metadata: ["player": "\(app.name)", "name": "\(name)",
                                                               "desktop": "\(desktop?.id ?? "none")"])
            refresh(name, midTrack: midTrack)
        }

        /// Reads the player's metadata and status again and tells its tracker.
        mutating func refresh(_ name: String, midTrack: Bool = false) {
            guard var player = players[name] else { return }
            var track: PlayerTrack?
            var status = PlaybackStatus.stopped
            var played = Duration.zero
            do {
                track = try bus.metadata(of: name)
                status = try bus.status(of: name)
                if midTrack && status != .stopped && track?.isTrack == true {
                    played = (try? bus.position(of: name)) ?? .zero
                }
            } catch {
                if complained.insert(name).inserted {
                    service.logger.notice("a player does not answer as MPRIS says; its plays are not followed while it does not",
                                          metadata: ["player": "\(player.app.name)", "error": "\(error)"])
                }
                track = nil
            }
            player.tracker.observe(track: track, status: status, now: .now, wall: service.clock.now(), alreadyPlayed: played)
            players[name] = player
            service.logger.debug("player state", metadata: ["name": "\(name)", "status": "\(status.rawValue)",
                                                            "title": "\(track?.displayTitle ?? "")"])
        }

        /// Records every play that has just crossed its threshold.
        mutating func recordDue() {
            let now = SuspendingClock.now
            for name in players.keys {
                guard let play = players[name]?.tracker.due(at: now), let startedAt = play.startedAt, let app = players[name]?.app else { continue }
                service.record(ListenedItem(track: play.track, startedAt: startedAt, app: app), app: app)
            }
        }
    }

    /// Writes a play's files and item, then the moments of its week. A failure is logged; the
    /// service goes on.
    private func record(_ listened: ListenedItem, app: PlayerApp) {
        let item = listened.item
        do {
            for file in listened.files where !FileManager.default.fileExists(atPath: store.path(of: file.media)) {
                try store.writeMedia(file.bytes, to: file.media.relativePath)
            }
            try store.insert([item])
            _ = try MomentEngine(store: store, builder: builder).refresh(touching: item.startMs...item.endMs)
            logger.info("listened", metadata: ["kind": "\(item.kind.rawValue)", "item": "\(item.id)", "player": "\(app.name)",
                                               "title": "\(Self.title(item.asset))"])
        } catch {
            logger.error("could not record a play", metadata: ["player": "\(app.name)", "error": "\(error)"])
        }
    }

    private static func title(_ asset: Item.Asset) -> String {
        switch asset {
        case .song(let s): s.song
        case .podcast(let p): p.episode
        case .genericMedia(let g): g.title
        default: ""
        }
    }
}
