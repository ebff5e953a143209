import Foundation
import Glibc
@testable import PickerdBroker
import Testing

/// The terminal guard's parts that need no pty: reading `/proc/PID/stat`, device numbers, and how
/// the holders of a master are judged (with this test process and its parent as the processes).
/// The whole guard, with real ptys and sandboxes, is `PickerdIntegrationTests.TerminalGuardTests`.
@Suite("The terminal guard's pieces")
struct TerminalGuardPieceTests {
    @Test("tty_nr is field 7 of /proc/PID/stat, counted after the last ')' of the command name")
    func statLine() {
        // A command name with spaces and parentheses, as `prctl(PR_SET_NAME)` allows.
        let line = "4242 (a) b) (c) S 1 4242 4242 34816 4242 4194560 120 0 0 0 1 0 0 0 20 0 1 0 12345 0 0"
        #expect(ProcessTable.controllingTerminal(fromStat: line) == 34816)
        #expect(ProcessTable.controllingTerminal(fromStat: "garbage") == nil)
        #expect(ProcessTable().controllingTerminal(of: getpid()) != nil, "this process's own stat is readable")
    }

    @Test("device numbers in the kernel's encoding: pts/5, pts/300, a virtual console, a serial line")
    func devices() {
        let pts5 = TerminalGuard.Device(kernelEncoded: 136 << 8 | 5)
        #expect(pts5 == TerminalGuard.Device(major: 136, minor: 5))
        #expect(pts5.ptyIndex == 5)
        #expect(pts5.description == "136:5")
        // Minor 300: low byte first, then the major, then the minor's upper bits from bit 20.
        let pts300 = TerminalGuard.Device(kernelEncoded: (300 & 0xff) | 136 << 8 | (300 & ~0xff) << 12)
        #expect(pts300.minor == 300)
        #expect(pts300.ptyIndex == 300)
        #expect(TerminalGuard.Device(major: 137, minor: 2).ptyIndex == 258)
        #expect(TerminalGuard.Device(major: 4, minor: 2).isVirtualConsole)
        #expect(TerminalGuard.Device(major: 4, minor: 2).ptyIndex == nil)
        #expect(!TerminalGuard.Device(major: 4, minor: 64).isVirtualConsole, "ttyS0")
        #expect(!TerminalGuard.Device(major: 4, minor: 0).isVirtualConsole, "tty0 is whichever console is in front")
    }

    @Test("holders: the app, its child, pickerd, nobody are refused; a process above the app (a terminal emulator) is not")
    func judgement() throws {
        let me = getpid(), parent = getppid()
        func judge(_ holders: Set<Int32>, caller: Int32) -> String? {
            TerminalGuard.judge(PtyMasters(holders: holders), index: 7, caller: caller, table: ProcessTable())?.message
        }
        #expect(judge([me], caller: me)?.contains("whose master this app holds") == true)
        #expect(judge([me], caller: parent)?.contains("a process started by this app holds") == true)
        // Neither the caller nor below it: this process plays pickerd holding a master it was sent.
        #expect(judge([me], caller: Int32.max)?.contains("handed to pickerd as well") == true)
        #expect(judge([], caller: me)?.contains("no process pickerd can see holds the master") == true)
        #expect(judge([parent], caller: me) == nil, "the terminal's holder started the app, in pickerd's namespaces")
    }

    @Test("typing: with legacy TIOCSTI on, a sandboxed app is refused; off, or outside a sandbox, it is not")
    func typing() throws {
        #expect(TerminalGuard.typingRefusal(legacyTIOCSTI: true, callerSandboxed: true)?.message.contains("legacy_tiocsti") == true)
        #expect(TerminalGuard.typingRefusal(legacyTIOCSTI: false, callerSandboxed: true) == nil)
        #expect(TerminalGuard.typingRefusal(legacyTIOCSTI: true, callerSandboxed: false) == nil)
        // The setting as the kernel writes it, and the worst assumed without it.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tiocsti-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "0\n".write(toFile: directory + "/off", atomically: true, encoding: .utf8)
        try "1\n".write(toFile: directory + "/on", atomically: true, encoding: .utf8)
        #expect(!TerminalGuard.legacyTIOCSTI(setting: directory + "/off"))
        #expect(TerminalGuard.legacyTIOCSTI(setting: directory + "/on"))
        #expect(TerminalGuard.legacyTIOCSTI(setting: directory + "/absent"))
    }
}
