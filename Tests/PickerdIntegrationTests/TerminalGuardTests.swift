import Foundation
import Glibc
import PickerdTestKit
import Testing

/// Invariant 13 across real processes: an app (the test client, `own-pty` modes) opens a pty of its
/// own, keeps its master somewhere, hands pickerd the slave as its terminal, and reads the master as
/// the picker would draw, typing the keys that approve a suggestion. Each must be refused with
/// `permissionDenied` before anything starts: no picker process, not a byte on the master, and the
/// connection still answering. journal-demo in a real terminal (tmux) is `TerminalPickerTests`.
@Suite("The terminal guard: a pty whose other end the app holds is refused", .serialized)
struct TerminalGuardTests {
    static let cannotRead = "the picker is drawn only on a terminal the app cannot read"
    static let heldByApp = "the terminal handed over is a pty whose master this app holds; \(cannotRead)"
    static let heldByChild = "the terminal handed over is a pty whose master a process started by this app holds; \(cannotRead)"
    static let heldInSandbox = "the terminal handed over is a pty whose master is held inside a sandbox (a process in another mount or "
        + "pid namespace than pickerd's); \(cannotRead)"
    static let notControlling = "the terminal handed over is not the app's controlling terminal; the picker is drawn only on the terminal "
        + "the app runs in"
    static let notTheDevice = "the descriptor handed over is not opened on the terminal device itself (it is /dev/tty, a pty master or "
        + "another node); hand over the terminal's own device so pickerd can tell what is at its other end"

    /// Runs `pickerd-test-client own-pty <variant>`, on the host or in a bwrap sandbox that sees only
    /// the client socket; returns its JSON lines.
    func ownPty(_ pickerd: RunningPickerd, _ variant: String, sandboxed: Bool = false) throws -> [[String: Any]] {
        let client = BuiltProducts.url("pickerd-test-client").path
        let result: CommandResult
        if sandboxed {
            let sandbox = try registeredSandbox(pickerd, program: client)
            result = try runCommand(URL(fileURLWithPath: "/usr/bin/bwrap"), sandbox + [client, "/run/pickerd", "own-pty", variant])
        } else {
            result = try runProduct("pickerd-test-client", [pickerd.runtime, "own-pty", variant])
        }
        let lines = jsonLines(result.stdout)
        #expect(!lines.contains { $0["event"] as? String == "failure" }, "the app could not set up its pty: \(result.stdout)\(result.stderr)")
        return lines
    }

    /// The refusal the invariant asks for: the typed error with `message`, nothing accepted, the
    /// connection still answering, not a byte drawn on the master, no picker started.
    func expectRefused(_ lines: [[String: Any]], _ pickerd: RunningPickerd, message: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = lines.first { $0["event"] as? String == "error" }
        #expect(error?["code"] as? String == "permissionDenied", "\(lines)", sourceLocation: sourceLocation)
        #expect(error?["message"] as? String == message, sourceLocation: sourceLocation)
        #expect(!lines.contains { $0["event"] as? String == "accepted" || $0["event"] as? String == "outcome" },
                "pickerd took the terminal: \(lines.map { [$0["event"], $0["result"], $0["title"]].compactMap { $0 } })",
                sourceLocation: sourceLocation)
        #expect(lines.contains { $0["event"] as? String == "still-open" && $0["answered"] as? Bool == true },
                "the connection goes on after the refusal", sourceLocation: sourceLocation)
        let master = lines.first { $0["event"] as? String == "master" }
        #expect(master?["drawn"] as? Int == 0, "drawn on the app's master: \(master?["screen"] ?? "no report")", sourceLocation: sourceLocation)
        #expect(master?["typed"] as? String == "", sourceLocation: sourceLocation)
        #expect(pickerd.logText.contains("terminal refused"), sourceLocation: sourceLocation)
        #expect(!pickerd.logText.contains("started a terminal picker"), "\(pickerd.logText)", sourceLocation: sourceLocation)
        let pid = try #require(pickerd.pid)
        let children = try runCommand(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-a", "-P", "\(pid)"]).stdout
        #expect(children.isEmpty, "pickerd started: \(children)", sourceLocation: sourceLocation)
    }

    /// One attack: where the app keeps the master (a `pickerd-test-client own-pty` variant), whether
    /// it runs in a sandbox, and the refusal it must meet.
    struct Attack: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let variant: String
        let sandboxed: Bool
        let message: String
    }

    static let attacks = [
        Attack(testDescription: "its own pty as its controlling terminal, the master in the app", variant: "self-ctty", sandboxed: false,
               message: heldByApp),
        Attack(testDescription: "its own pty as its controlling terminal, the master in a child it started", variant: "child-ctty",
               sandboxed: false, message: heldByChild),
        Attack(testDescription: "in a sandbox (bwrap), on a pty whose master its parent in the sandbox holds", variant: "parent-ctty",
               sandboxed: true, message: heldInSandbox),
        Attack(testDescription: "in a sandbox (bwrap), holding the master itself", variant: "self-ctty", sandboxed: true, message: heldByApp),
        Attack(testDescription: "a pty that is not its controlling terminal", variant: "self", sandboxed: false, message: notControlling),
        Attack(testDescription: "its pty handed over as /dev/tty, which hides its devpts instance", variant: "devtty", sandboxed: false,
               message: notTheDevice),
    ]

    @Test("an app presenting on a terminal whose other end it controls is refused: nothing drawn, no picker", arguments: attacks)
    func refused(_ attack: Attack) throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "cancel"}]}"#)
        try expectRefused(try ownPty(pickerd, attack.variant, sandboxed: attack.sandboxed), pickerd, message: attack.message)
        pickerd.stop()
    }
}
