import CPickerdShims
import Glibc
import SystemPackage

/// Invariant 13: the picker is drawn only where the app can neither read it nor type into it.
///
/// An app may hand pickerd its terminal so the terminal picker draws there. A pty has two ends:
/// whatever holds the master reads every byte drawn on the slave and types every key the picker
/// reads. An app that opens a pty itself (posix_openpt), keeps the master and hands over the slave
/// would read each suggestion's title and could press Enter as the person. So before a terminal is
/// used, the guard asks the kernel:
///
/// 1. **Which terminal.** `TIOCGDEV` names the real device; the descriptor must be opened on that
///    device's own node (not `/dev/tty`, not a master), so `fstat` also names its devpts instance.
///    Unix98 pty slaves (majors 136–143) are checked further; virtual consoles (`/dev/tty1`…`63`,
///    whose other end is a screen and keyboard, readable back only through `/dev/vcs*`, which is
///    root's) need no more; anything else (serial lines, legacy BSD ptys, consoles of a hypervisor) is
///    refused, since pickerd cannot tell what is at its other end.
/// 2. **The app's own terminal.** It must be the caller's controlling terminal (`tty_nr` in
///    `/proc/PID/stat`, the pid from `SO_PEERCRED`, still alive by its pidfd afterwards).
/// 3. **Who holds the master** (``PtyMasters``). Refused when a holder is the app itself, a process
///    below it in the process tree, a process in another mount or pid namespace than pickerd's (the
///    app's sandbox), or pickerd itself (the app handed it the master too); when no process pickerd
///    can see holds it (a master can wait in a socket's queue, held by no process); and when a
///    process pickerd cannot inspect may hold it and is the app, below it, or sandboxed.
///
/// 4. **Typing.** Where the kernel still lets a process type into its controlling terminal
///    (`TIOCSTI`, `dev.tty.legacy_tiocsti = 1`), a sandboxed app is refused: it could press the
///    picker's keys.
///
/// What remains is said in Documentation/security.md ("The terminal guard (invariant 13)"): a same-uid process outside any sandbox
/// has many ways around this (it can be the terminal's parent, trace processes, read pickerd's
/// files); the guard is what keeps a sandboxed app, and an app trying its own pty, from seeing the
/// picker.
enum TerminalGuard {
    /// Why a terminal is refused.
    struct Refusal: Error, Equatable {
        /// For the app (sent as a `PERMISSION_DENIED` error): what was wrong, without other
        /// processes' ids.
        let message: String
        /// For pickerd's log: the same with what pickerd saw (devices, process ids).
        let detail: String
    }

    /// A terminal's device number, as the kernel encodes it for `TIOCGDEV` and `tty_nr`
    /// (`new_encode_dev`: minor's low byte, then the major, then the minor's upper bits).
    struct Device: Equatable, CustomStringConvertible {
        let major: UInt32
        let minor: UInt32

        init(major: UInt32, minor: UInt32) {
            self.major = major
            self.minor = minor
        }

        init(kernelEncoded value: UInt32) {
            major = (value & 0xfff00) >> 8
            minor = (value & 0xff) | ((value >> 12) & 0xfff00)
        }

        /// `major:minor`, as `ls -l` and `/proc/PID/mountinfo` write it.
        var description: String { "\(major):\(minor)" }

        /// A Unix98 pty slave (`/dev/pts/N`): majors 136–143 (`Documentation/admin-guide/devices.txt`).
        /// Linux puts every slave on major 136 with the index as its minor; the other majors are the
        /// index's upper bits from when minors had eight.
        var ptyIndex: Int? {
            guard (136...143).contains(major) else { return nil }
            return major == 136 ? Int(minor) : Int((major - 136) << 8 | minor)
        }

        /// A virtual console, `/dev/tty1` to `/dev/tty63` (major 4; minors from 64 are serial lines).
        var isVirtualConsole: Bool { major == 4 && (1...63).contains(minor) }
    }

    private static let unreadable = "the picker is drawn only on a terminal the app cannot read"
    private static let unvouched = "the picker is drawn only on a terminal pickerd can vouch for"

    /// Decides whether the terminal picker may draw on `terminal` for `caller` (see the type's
    /// comment for each check).
    /// - Parameters:
    ///   - terminal: the descriptor the app handed over as its terminal (already known to be a tty).
    ///   - caller: the app, as the kernel identified its connection.
    /// - Returns: `nil` when the terminal is safe to draw on, else why not.
    static func refusal(terminal: FileDescriptor, caller: PeerIdentity) -> Refusal? {
        // 1. Which terminal, and is the descriptor its own device node.
        var encoded: UInt32 = 0
        guard pickerd_tty_device(terminal.rawValue, &encoded) == 0 else {
            return Refusal(message: "pickerd cannot tell which terminal was handed over; \(unvouched)",
                           detail: "TIOCGDEV failed: \(Errno(rawValue: errno))")
        }
        let device = Device(kernelEncoded: encoded)
        var node = stat()
        guard fstat(terminal.rawValue, &node) == 0 else {
            return Refusal(message: "pickerd cannot tell which terminal was handed over; \(unvouched)",
                           detail: "fstat failed: \(Errno(rawValue: errno))")
        }
        let opened = Device(major: pickerd_dev_major(UInt64(node.st_rdev)), minor: pickerd_dev_minor(UInt64(node.st_rdev)))
        guard node.st_mode & S_IFMT == S_IFCHR, opened == device else {
            return Refusal(message: "the descriptor handed over is not opened on the terminal device itself (it is /dev/tty, a pty master or "
                               + "another node); hand over the terminal's own device so pickerd can tell what is at its other end",
                           detail: "descriptor of device \(opened) for terminal \(device)")
        }
        let index = device.ptyIndex
        guard index != nil || device.isVirtualConsole else {
            return Refusal(message: "the terminal handed over (device \(device)) is neither a pseudo-terminal nor a virtual console; "
                               + "the picker is drawn only on those",
                           detail: "unsupported terminal \(device)")
        }
        if index != nil, pickerd_fd_is_devpts(terminal.rawValue) != 1 {
            return Refusal(message: "the terminal handed over is a pty device node outside devpts; \(unvouched)",
                           detail: "pty \(device) not on devpts")
        }

        // 2. The app's controlling terminal, read while the app is known to be alive.
        let table = ProcessTable()
        let controlling = table.controllingTerminal(of: caller.pid)
        guard caller.isAlive, let controlling, controlling == encoded else {
            return Refusal(message: "the terminal handed over is not the app's controlling terminal; "
                               + "the picker is drawn only on the terminal the app runs in",
                           detail: "terminal \(device), the caller's (pid \(caller.pid)) controlling terminal "
                               + "\(controlling.map { Device(kernelEncoded: $0).description } ?? "unreadable")")
        }

        // 3. Who holds the master.
        if let index {
            let masters = PtyMasters.scan(index: index, instance: UInt64(node.st_dev), in: table)
            if let refusal = judge(masters, index: index, caller: caller.pid, table: table) { return refusal }
        }

        // 4. Typing through TIOCSTI.
        let own = table.namespaces(of: nil)
        let sandboxed = own == nil || table.namespaces(of: caller.pid) != own
        return typingRefusal(legacyTIOCSTI: legacyTIOCSTI(), callerSandboxed: sandboxed)
    }

    /// Whether the kernel lets a process push keystrokes into its controlling terminal (`TIOCSTI`):
    /// `dev.tty.legacy_tiocsti` (Linux 6.2 and later; 1 where the distribution kept the old default),
    /// always on older kernels, which lack the setting.
    static func legacyTIOCSTI(setting path: String = "/proc/sys/dev/tty/legacy_tiocsti") -> Bool {
        // Absent (an older kernel) or unreadable: assume the worst.
        guard let file = fopen(path, "r") else { return true }
        defer { fclose(file) }
        return fgetc(file) != Int32(UInt8(ascii: "0"))
    }

    /// 4. Typing. With legacy `TIOCSTI` on, any process can type into its controlling terminal, which
    /// check 2 requires the terminal to be: an app in a sandbox could press the picker's keys for the
    /// person. Refused for a sandboxed caller (or one whose namespaces cannot be read). An app outside
    /// any sandbox can do as much in other ways (Documentation/security.md, "The terminal guard (invariant 13)").
    static func typingRefusal(legacyTIOCSTI: Bool, callerSandboxed: Bool) -> Refusal? {
        guard legacyTIOCSTI, callerSandboxed else { return nil }
        return Refusal(message: "this system lets a program type into its own terminal (dev.tty.legacy_tiocsti is on), and the app runs "
                           + "in a sandbox: the picker is drawn only where the app cannot type; present without a terminal",
                       detail: "legacy TIOCSTI on, caller sandboxed")
    }

    /// The refusal, if any, for a pty whose masters are `masters`; the worst reason wins.
    static func judge(_ masters: PtyMasters, index: Int, caller: Int32, table: ProcessTable) -> Refusal? {
        let own = table.namespaces(of: nil)
        let pickerd = getpid()
        let holders = masters.holders.sorted()
        if holders.contains(caller) {
            return Refusal(message: "the terminal handed over is a pty whose master this app holds; \(unreadable)",
                           detail: "pts/\(index): the master is held by the caller, pid \(caller)")
        }
        if let child = holders.first(where: { table.isDescendant($0, of: caller) }) {
            return Refusal(message: "the terminal handed over is a pty whose master a process started by this app holds; \(unreadable)",
                           detail: "pts/\(index): the master is held by pid \(child), a descendant of the caller, pid \(caller)")
        }
        for holder in holders where holder != pickerd {
            let namespaces = table.namespaces(of: holder)
            if namespaces == nil || own == nil {
                return Refusal(message: "pickerd cannot inspect a process that holds the master of the pty handed over; \(unvouched)",
                               detail: "pts/\(index): the namespaces of pid \(holder), which holds the master, are unreadable")
            }
            if namespaces != own {
                return Refusal(message: "the terminal handed over is a pty whose master is held inside a sandbox (a process in another "
                                   + "mount or pid namespace than pickerd's); \(unreadable)",
                               detail: "pts/\(index): the master is held by pid \(holder) in \(namespaces ?? []), pickerd is in \(own ?? [])")
            }
        }
        if holders.contains(pickerd) {
            return Refusal(message: "the terminal handed over is a pty whose master was handed to pickerd as well; \(unreadable)",
                           detail: "pts/\(index): pickerd itself holds a master (received from a client)")
        }
        if holders.isEmpty {
            return Refusal(message: "no process pickerd can see holds the master of the pty handed over (it may wait in a socket, or "
                               + "belong to another user); \(unvouched)",
                           detail: "pts/\(index): no holder found; \(masters.uninspectable.count) processes uninspectable")
        }
        let hidden = masters.uninspectable.sorted().first { pid in
            pid == caller || table.isDescendant(pid, of: caller) || table.inNestedPIDNamespace(pid) == true
        }
        if let hidden {
            return Refusal(message: "pickerd cannot inspect a process that may hold the master of the pty handed over; \(unvouched)",
                           detail: "pts/\(index): pid \(hidden) hides its descriptors and is the caller (pid \(caller)), below it, or sandboxed")
        }
        return nil
    }
}
