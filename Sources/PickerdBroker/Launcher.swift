import CPickerdShims
import Foundation
import Glibc
import Logging

/// Starts the programs pickerd launches (picker agents, the app that opens a reminder) as the person,
/// with pickerd's environment plus where pickerd's sockets are, signals at their defaults and in a
/// session of their own. pickerd does not wait for them, but reaps each when it exits.
enum Launcher {
    /// Starts `argv` (a bare program name is looked up on `PATH`).
    /// - Parameters:
    ///   - argv: the program and its arguments.
    ///   - runtimeDirectory: pickerd's runtime directory, passed as `PICKERD_RUNTIME_DIR`.
    ///   - what: what the program is, for the log.
    ///   - logger: where to log.
    ///   - exited: called with the exit status (or 128 + the signal) when the program ends, or with
    ///     127 at once when it could not be started.
    /// - Returns: the process id, or `nil` when the program could not be started (logged).
    @discardableResult
    static func launch(_ argv: [String], runtimeDirectory: String, what: String, logger: Logger,
                       exited: (@Sendable (Int32) -> Void)? = nil) -> Int32? {
        guard let program = argv.first, !program.isEmpty else {
            logger.error("nothing to start", metadata: ["what": "\(what)"])
            exited?(127)
            return nil
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PICKERD_RUNTIME_DIR"] = runtimeDirectory
        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: Int32 = 0
        let error = pickerd_spawn(program, arguments, variables, &pid)
        guard error == 0 else {
            logger.error("cannot start \(what)", metadata: ["command": "\(argv.joined(separator: " "))",
                                                            "error": "\(String(cString: strerror(error)))"])
            exited?(127)
            return nil
        }
        logger.info("started \(what)", metadata: ["command": "\(argv.joined(separator: " "))", "pid": "\(pid)"])
        let child = pid
        let reaper = Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            let code = exitCode(status)
            if code != 0 { logger.notice("\(what) ended", metadata: ["pid": "\(child)", "status": "\(code)"]) }
            exited?(code)
        }
        reaper.name = "pickerd-reaper"
        reaper.start()
        return pid
    }

    /// A `waitpid` status as a shell says it: the exit status, or 128 + the signal that ended the
    /// process (WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc's Swift import does not bring).
    static func exitCode(_ status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
