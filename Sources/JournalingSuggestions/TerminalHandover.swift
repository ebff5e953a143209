import CPickerdShims
import Foundation
import Glibc
import Synchronization
import SystemPackage

/// The app's terminal, handed to pickerd for the terminal picker: a fresh descriptor of the
/// terminal's own device (so the app's own descriptors and their flags are untouched), and the
/// terminal's modes as they were, put back when the presentation ends, even if the picker died in
/// raw mode.
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
    ///
    /// pickerd draws only on a terminal whose other end it can vouch for, and tells a pty's devpts
    /// instance from the descriptor's own device node, which a descriptor of `/dev/tty` hides. So
    /// the controlling terminal (`/dev/tty`, its device from `TIOCGDEV`) is reopened through the
    /// standard descriptor that is that terminal (`/proc/self/fd/N`: a new open file description of
    /// the same device, which works in a sandbox whose `/dev/pts` is not the host's).
    static func open() -> TerminalHandover? {
        if let off = ProcessInfo.processInfo.environment["PICKERD_NO_TERMINAL"], !off.isEmpty, off != "0" { return nil }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return nil }
        let controlling = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard controlling >= 0 else { return nil }
        var device: UInt32 = 0
        if pickerd_tty_device(controlling, &device) == 0 {
            for standard in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
                var info = stat()
                guard fstat(standard, &info) == 0, info.st_mode & S_IFMT == S_IFCHR,
                      // TIOCGDEV answers in the kernel's encoding (new_encode_dev), fstat in glibc's.
                      pickerd_dev_major(UInt64(info.st_rdev)) == (device & 0xfff00) >> 8,
                      pickerd_dev_minor(UInt64(info.st_rdev)) == (device & 0xff) | ((device >> 12) & 0xfff00) else { continue }
                let fd = Glibc.open("/proc/self/fd/\(standard)", O_RDWR | O_NOCTTY | O_CLOEXEC)
                if fd >= 0 {
                    Glibc.close(controlling)
                    return TerminalHandover(descriptor: FileDescriptor(rawValue: fd))
                }
            }
        }
        // No standard descriptor is the terminal itself: pickerd will say why it cannot use this one.
        return TerminalHandover(descriptor: FileDescriptor(rawValue: controlling))
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
