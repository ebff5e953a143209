import CBus
import Glibc

/// A failed call on the session bus: what was asked, the errno, and what the bus said.
struct BusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What pickerd asked ("connect to unix:path=…", "read Metadata of org.mpris.MediaPlayer2.vlc").
    var operation: String
    /// The errno sd-bus returned (positive).
    var code: Int32
    /// What the bus said, when it said something ("org.freedesktop.DBus.Error.ServiceUnknown: …").
    var detail: String

    /// "cannot <operation>: <detail or strerror>".
    var description: String {
        "cannot \(operation): \(detail.isEmpty ? String(cString: strerror(code)) : detail)"
    }
}

/// What the bus reported between two ``BusConnection/step(timeout:)``s.
enum BusEvent: Hashable, Sendable {
    /// A name under `org.mpris.MediaPlayer2.` changed hands: `oldOwner` empty when it appeared,
    /// `newOwner` empty when it went.
    case ownerChanged(name: String, oldOwner: String, newOwner: String)
    /// The player connection `sender` (a unique name) said its Metadata or PlaybackStatus changed.
    case playerChanged(sender: String, metadata: Bool, status: Bool)
}

/// What a player says it is doing (MPRIS `PlaybackStatus`).
enum PlaybackStatus: String, Hashable, Sendable {
    case playing = "Playing"
    case paused = "Paused"
    case stopped = "Stopped"

    /// The status `text` names; anything else is taken as stopped.
    init(text: String) { self = PlaybackStatus(rawValue: text) ?? .stopped }
}

/// A connection to a D-Bus bus through CBus (sd-bus from libsystemd), for one thread's use: the
/// listening service's thread makes it, calls it, and drops it. Not `Sendable`, on purpose.
final class BusConnection {
    /// The MPRIS interfaces and the prefix of every player's name.
    static let playerPrefix = "org.mpris.MediaPlayer2."
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// The most events kept between two steps; past it the service reads every player again.
    static let eventCapacity = 256

    private let bus: OpaquePointer

    /// Connects to the bus at `address` and says Hello (`pb_bus_open`: sd_bus_set_address, sd_bus_start).
    /// - Parameter address: a D-Bus address ("unix:path=/run/user/1000/bus").
    /// - Throws: ``BusError`` when nothing answers there.
    init(address: String) throws(BusError) {
        var bus: OpaquePointer?
        let r = pb_bus_open(address, &bus)
        guard r >= 0, let bus else { throw BusError(operation: "connect to the session bus \(address)", code: -r, detail: "") }
        self.bus = bus
    }

    deinit { pb_bus_close(bus) }

    private func failure(_ operation: String, _ r: Int32) -> BusError {
        BusError(operation: operation, code: -r, detail: String(cString: pb_bus_error(bus)))
    }

    /// Subscribes to players coming and going and to their Player properties changing (two match rules).
    /// - Throws: ``BusError``.
    func watchPlayers() throws(BusError) {
        let r = pb_bus_watch_players(bus)
        guard r >= 0 else { throw failure("watch media players", r) }
    }

    /// The names on the bus that start with `prefix` (ListNames).
    /// - Throws: ``BusError``.
    func names(prefix: String) throws(BusError) -> [String] {
        var joined: UnsafeMutablePointer<CChar>?
        let r = pb_bus_list_names(bus, prefix, &joined)
        guard r >= 0, let joined else { throw failure("list the bus's names", r) }
        defer { pb_free(joined) }
        return String(cString: joined).split(separator: "\n").map(String.init)
    }

    /// The unique name that owns `name` (GetNameOwner), `nil` when nobody does.
    /// - Throws: ``BusError`` for anything but "no owner".
    func owner(of name: String) throws(BusError) -> String? {
        var owner: UnsafeMutablePointer<CChar>?
        let r = pb_bus_name_owner(bus, name, &owner)
        if r == -ENXIO { return nil }
        guard r >= 0, let owner else { throw failure("ask who owns \(name)", r) }
        defer { pb_free(owner) }
        return String(cString: owner)
    }

    /// The player's `Metadata`, decoded (`pb_player_metadata`).
    /// - Throws: ``BusError`` (no such player, a reply of another type, no answer within two seconds).
    func metadata(of name: String) throws(BusError) -> PlayerTrack {
        var track = pb_track()
        defer { pb_track_clear(&track) }
        let r = pb_player_metadata(bus, name, &track)
        guard r >= 0 else { throw failure("read the Metadata of \(name)", r) }
        func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        return PlayerTrack(title: text(track.title), artist: text(track.artist), album: text(track.album),
                           artURL: text(track.art_url), genres: text(track.genre).split(separator: "\n").map(String.init),
                           url: text(track.url), trackID: text(track.track_id),
                           length: track.length_us > 0 ? .microseconds(track.length_us) : nil)
    }

    /// A string property of the player (`Identity`, `DesktopEntry` of the root interface;
    /// `PlaybackStatus` of the Player interface).
    /// - Throws: ``BusError`` (also when the player does not have it).
    func string(_ property: String, interface: String, of name: String) throws(BusError) -> String {
        var value: UnsafeMutablePointer<CChar>?
        let r = pb_player_string(bus, name, interface, property, &value)
        guard r >= 0, let value else { throw failure("read the \(property) of \(name)", r) }
        defer { pb_free(value) }
        return String(cString: value)
    }

    /// The player's `PlaybackStatus`.
    /// - Throws: ``BusError``.
    func status(of name: String) throws(BusError) -> PlaybackStatus {
        PlaybackStatus(text: try string("PlaybackStatus", interface: Self.playerInterface, of: name))
    }

    /// The player's `Position`, how far into the track it is.
    /// - Throws: ``BusError``.
    func position(of name: String) throws(BusError) -> Duration {
        var microseconds: Int64 = 0
        let r = pb_player_position(bus, name, &microseconds)
        guard r >= 0 else { throw failure("read the Position of \(name)", r) }
        return .microseconds(max(0, microseconds))
    }

    /// Handles what the bus brought, or waits up to `timeout` for something to come (`pb_bus_run`).
    /// - Parameter timeout: the longest wait when nothing is waiting.
    /// - Returns: the events, in order, and whether some were dropped (more than
    ///   ``eventCapacity``: read every player again).
    /// - Throws: ``BusError`` when the connection is lost.
    func step(timeout: Duration) throws(BusError) -> (events: [BusEvent], overflowed: Bool) {
        final class Sink {
            var events: [BusEvent] = []
            var overflowed = false
        }
        let sink = Sink()
        let microseconds = UInt64(max(0, timeout.components.seconds)) * 1_000_000
            + UInt64(max(0, timeout.components.attoseconds / 1_000_000_000_000))
        let r = withExtendedLifetime(sink) {
            pb_bus_run(bus, microseconds, { event, context in
                guard let event, let context else { return }
                let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                guard sink.events.count < BusConnection.eventCapacity else {
                    sink.overflowed = true
                    return
                }
                let e = event.pointee
                switch e.kind {
                case PB_EVENT_OWNER_CHANGED:
                    sink.events.append(.ownerChanged(name: String(cString: e.name), oldOwner: String(cString: e.old_owner),
                                                     newOwner: String(cString: e.new_owner)))
                case PB_EVENT_PLAYER_CHANGED:
                    sink.events.append(.playerChanged(sender: String(cString: e.sender),
                                                      metadata: Int(e.changed) & PB_CHANGED_METADATA != 0,
                                                      status: Int(e.changed) & PB_CHANGED_STATUS != 0))
                default:
                    break
                }
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard r >= 0 else { throw failure("go on reading the session bus", r) }
        return (sink.events, sink.overflowed)
    }
}
