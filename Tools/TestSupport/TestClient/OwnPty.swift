// The test client as a hostile app (invariant 13): it opens a pty of its own, keeps the master (or
// gives it to a child, or to its parent in a sandbox), hands pickerd the slave as "its terminal", and
// reads whatever is drawn on the master, typing the keys that would approve a suggestion. pickerd
// must refuse the terminal, start no picker and draw nothing. Each line it prints is JSON:
// the frames it received (as `describe` writes them), "still-open" (whether the connection still
// answered after a refusal) and "master" (what the master side saw: bytes drawn, text, keys typed).

import CPickerdShims
import CTestClientShims
import Dispatch
import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

enum OwnPty {
    /// `own-pty VARIANT`: who holds the master, and whether the slave is the app's controlling terminal.
    /// - `self`: the app holds it; the slave is not its controlling terminal.
    /// - `self-ctty`: the app holds it; the slave is its controlling terminal.
    /// - `child-ctty`: a child of the app holds it; the slave is the app's controlling terminal.
    /// - `parent-ctty`: this process holds it and starts the app (`present-tty`) on the slave, as its
    ///   controlling terminal: the shape of a terminal emulator, refused only inside a sandbox.
    /// - `devtty`: as `self-ctty`, but handing over a descriptor of `/dev/tty`.
    static func main(variant: String, socket: String) -> Never {
        switch variant {
        case "self":
            let (master, slave) = openPty(controlling: false)
            let reader = ScreenReader(master: master)
            let status = present(on: slave, socket: socket, reader: reader)
            reader.finish()
            exit(status)
        case "self-ctty", "devtty":
            becomeSessionLeader()
            let (master, slave) = openPty(controlling: true)
            let handed = variant == "devtty" ? open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC) : slave
            guard handed >= 0 else { fail("open /dev/tty") }
            let reader = ScreenReader(master: master)
            let status = present(on: handed, socket: socket, reader: reader)
            reader.finish()
            exit(status)
        case "child-ctty":
            becomeSessionLeader()
            let (master, slave) = openPty(controlling: true)
            // The child inherits the master (not close-on-exec); the app keeps no copy.
            // The child is told its parent's pid: had it asked getppid() itself, a parent that was
            // already gone would have been init, and the child would have waited for ever.
            spawn(["read-master", "\(master)", "\(getpid())"], socket: socket)
            close(master)
            exit(present(on: slave, socket: socket))
        case "parent-ctty":
            let (master, path) = newPty()
            // The app started on the slave must not inherit the master: only this process holds it.
            _ = fcntl(master, F_SETFD, FD_CLOEXEC)
            let reader = ScreenReader(master: master)
            let child = spawn(["present-tty", path], socket: socket)
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            reader.finish()
            exit((status & 0x7f) == 0 ? (status >> 8) & 0xff : 1)
        default:
            fail("unknown own-pty variant \(variant)")
        }
    }

    /// `read-master FD PARENT`: reads and types on the inherited master until the parent (the app,
    /// pid PARENT) is gone.
    static func readMaster(_ fd: Int32, parent: pid_t) -> Never {
        let reader = ScreenReader(master: fd)
        while getppid() == parent { usleep(20_000) }
        reader.finish()
        exit(0)
    }

    /// `present-tty PATH`: in a new session, takes the slave at PATH as the controlling terminal and
    /// presents with it.
    static func presentOnTTY(_ path: String, socket: String) -> Never {
        let slave = open(path, O_RDWR | O_CLOEXEC)
        guard slave >= 0, ioctl(slave, UInt(TIOCSCTTY), 0) == 0 else { fail("take \(path) as the controlling terminal") }
        exit(present(on: slave, socket: socket))
    }

    // MARK: Pieces

    /// A new pty: the master, and the slave opened (as the controlling terminal when asked).
    private static func openPty(controlling: Bool) -> (master: Int32, slave: Int32) {
        let (master, path) = newPty()
        let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { fail("open \(path)") }
        if controlling, ioctl(slave, UInt(TIOCSCTTY), 0) != 0 { fail("TIOCSCTTY") }
        return (master, slave)
    }

    private static func newPty() -> (master: Int32, path: String) {
        var path = [CChar](repeating: 0, count: 128)
        let master = testclient_open_pty(&path, path.count)
        guard master >= 0 else { fail("posix_openpt") }
        return (master, String(decoding: path.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Only a session leader can take a controlling terminal: when this process is not one, it runs
    /// itself again in a new session and exits with that run's status.
    private static func becomeSessionLeader() {
        guard getsid(0) != getpid() else { return }
        var status: Int32 = 0
        let child = spawnSelf(Array(CommandLine.arguments.dropFirst()))
        while waitpid(child, &status, 0) == -1 && errno == EINTR {}
        exit((status & 0x7f) == 0 ? (status >> 8) & 0xff : 1)
    }

    /// Runs this program with `arguments` after the runtime directory, in a new session.
    @discardableResult
    private static func spawn(_ arguments: [String], socket: String) -> pid_t {
        let runtime = String(socket.dropLast("/client.sock".count))
        return spawnSelf([runtime] + arguments)
    }

    private static func spawnSelf(_ arguments: [String]) -> pid_t {
        let argv = (["/proc/self/exe"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: Int32 = 0
        // pickerd's own launcher: a new session (so the child can take a terminal as its controlling
        // one), signals at their defaults; descriptors without close-on-exec are inherited.
        guard pickerd_spawn("/proc/self/exe", argv, environ, &pid) == 0 else { fail("posix_spawn") }
        return pid
    }

    /// Presents with `terminal` as the app's terminal; prints each frame until the outcome or an
    /// error, and after an error whether the connection still answers.
    /// - Returns: the exit status (0 when pickerd answered).
    private static func present(on terminal: Int32, socket: String, reader: ScreenReader? = nil) -> Int32 {
        do {
            let client = try ProtocolClient(path: socket, role: .client, software: "pickerd-test-client own-pty")
            let request = PresentRequest(buttonTitle: "Add to Test", hasTerminal: true, terminalFdIndex: 0, terminalType: "xterm")
            try client.connection.send(Envelope(requestId: 30, body: .present(request)), descriptors: [FileDescriptor(rawValue: terminal)])
            while let frame = try client.connection.receive() {
                emit(describe(frame))
                switch frame.envelope.body {
                case .presentAccepted?:
                    // Only a pickerd without the guard gets here; the picker is up and the master
                    // side is reading it. Bound the wait in case the keys typed do not finish it.
                    DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
                        emit(["event": "timeout"])
                        reader?.finish()
                        exit(1)
                    }
                case .outcome?:
                    return 0
                case .error?:
                    // A refusal of one request: the connection goes on.
                    try client.connection.send(Envelope(requestId: 31, body: .configuration(ConfigurationRequest())))
                    let answer = try client.connection.receive()
                    if case .configurationReply? = answer?.envelope.body {
                        emit(["event": "still-open", "answered": true])
                    } else {
                        emit(["event": "still-open", "answered": false])
                    }
                    return 0
                default:
                    continue
                }
            }
            emit(["event": "closed"])
            return 1
        } catch {
            emit(["event": "failure", "message": "\(error)"])
            return 1
        }
    }

    private static func fail(_ what: String) -> Never {
        emit(["event": "failure", "message": "\(what): \(String(cString: strerror(errno)))"])
        exit(1)
    }
}

/// The master side of a pty, read as a hostile app would: every byte drawn is kept, and the keys
/// that approve the first suggestion are typed as the picker's screens appear (Turn On on the
/// consent sheet, Enter on the list, Enter on the review). ``finish()`` prints what it saw.
final class ScreenReader: Sendable {
    private struct State {
        var drawn: [UInt8] = []
        var typed = ""
        var stop = false
    }

    private let master: Int32
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    init(master: Int32) {
        self.master = master
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.start()
    }

    /// Stops reading, takes what is still waiting on the master, and prints the "master" line.
    func finish() {
        state.withLock { $0.stop = true }
        done.wait()
        let (drawn, typed) = state.withLock { ($0.drawn, $0.typed) }
        let text = Self.plain(drawn)
        emit(["event": "master", "drawn": drawn.count, "typed": typed, "sawSuggestions": text.contains("Recommended ("),
              "screen": String(text.prefix(4000))])
    }

    private func run() {
        var steps: [(seen: String, key: String)] = [("Turn On", "t"), ("Recommended (", "\r"), ("Add to Test ]", "\r")]
        var since = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let stopping = state.withLock { $0.stop }
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, stopping ? 0 : 50)
            if ready > 0 && poller.revents & Int16(POLLIN) != 0 {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count > 0 {
                    let drawn = state.withLock { $0.drawn += buffer[..<count]; return $0.drawn }
                    // The furthest screen shown since the last key (consent is asked only once).
                    let screen = Self.plain(Array(drawn[since...]))
                    if let step = steps.lastIndex(where: { screen.contains($0.seen) }) {
                        let key = steps[step].key
                        _ = write(master, key, key.utf8.count)
                        state.withLock { $0.typed += key }
                        since = drawn.count
                        steps.removeFirst(step + 1)
                    }
                    continue
                }
            }
            if stopping { return }
            // No slave open yet (or any more): poll reports a hang-up at once; do not spin.
            if ready > 0 && poller.revents & Int16(POLLHUP | POLLERR) != 0 { usleep(20_000) }
        }
    }

    /// The text of terminal output: escape sequences dropped, control characters as line breaks.
    static func plain(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x1b, i + 1 < bytes.count {
                let kind = bytes[i + 1]
                i += 2
                if kind == UInt8(ascii: "[") {
                    while i < bytes.count, !(0x40...0x7e).contains(bytes[i]) { i += 1 }
                    i += 1
                } else if kind == UInt8(ascii: "]") {
                    while i < bytes.count, bytes[i] != 0x07, bytes[i] != 0x1b { i += 1 }
                    i += 1
                } else if kind == UInt8(ascii: "(") || kind == UInt8(ascii: ")") {
                    i += 1
                }
                continue
            }
            out.append(byte < 0x20 ? UInt8(ascii: "\n") : byte)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
