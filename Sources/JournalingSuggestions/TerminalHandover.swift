import Foundation
import Glibc
import Synchronization
import SystemPackage

/// The app's terminal, handed to pickerd for the terminal picker: a fresh descriptor of `/dev/tty`
/// (so the app's own descriptors and their flags are untouched), and the terminal's modes as they
/// were, put back when the presentation ends, even if the picker died in raw mode.
final class TerminalHandover: Sendable {
    let descriptor: FileDescriptor
    private let saved: termios
    private let released = Mutex(false)

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
        var modes = termios()
        tcgetattr(descriptor.rawValue, &modes)
        saved = modes
    }

    /// The terminal, when the app runs in one (standard input and output both terminals) and
    /// `PICKERD_NO_TERMINAL` is not set; `nil` otherwise.
    static func open() -> TerminalHandover? {
        if let off = ProcessInfo.processInfo.environment["PICKERD_NO_TERMINAL"], !off.isEmpty, off != "0" { return nil }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return nil }
        let fd = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        return TerminalHandover(descriptor: FileDescriptor(rawValue: fd))
    }

    /// Closes the app's copy of the descriptor (pickerd has its own once the request is sent).
    func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { Glibc.close(descriptor.rawValue) }
    }

    /// Puts the terminal's modes back as they were and closes the descriptor if still open.
    func restore() {
        var modes = saved
        tcsetattr(STDIN_FILENO, TCSADRAIN, &modes)
        release()
    }
}
