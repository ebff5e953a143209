public import Foundation

/// Where pickerd keeps its sockets, store and configuration (XDG base directories), each of which a
/// flag can override so tests and demos run in temporary directories.
public struct PickerdPaths: Sendable, Hashable {
    /// Sockets and the instance lock: `$XDG_RUNTIME_DIR/pickerd`.
    public var runtimeDirectory: String
    /// The store: `$XDG_DATA_HOME/pickerd` (default `~/.local/share/pickerd`).
    public var dataDirectory: String
    /// The app registry and settings files: `$XDG_CONFIG_HOME/pickerd` (default `~/.config/pickerd`).
    public var configDirectory: String

    /// The socket apps connect to.
    public var clientSocket: String { runtimeDirectory + "/client.sock" }
    /// The socket picker front ends connect to.
    public var agentSocket: String { runtimeDirectory + "/agent.sock" }
    /// The socket pickerctl connects to.
    public var controlSocket: String { runtimeDirectory + "/control.sock" }

    /// A failure to work out a path.
    public struct Unresolved: Error, CustomStringConvertible {
        /// What is missing, and which flag sets it.
        public var description: String
    }

    /// Resolves each path from its flag, else the environment, else the XDG default.
    /// - Parameters:
    ///   - runtimeDirectory: `--runtime-dir`, if given.
    ///   - dataDirectory: `--data-dir`, if given.
    ///   - configDirectory: `--config-dir`, if given.
    ///   - environment: the environment to read (the process's by default).
    /// - Returns: the paths.
    /// - Throws: ``Unresolved`` when no runtime directory can be found (no `XDG_RUNTIME_DIR`).
    public static func resolve(runtimeDirectory: String? = nil, dataDirectory: String? = nil, configDirectory: String? = nil,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PickerdPaths {
        func nonEmpty(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        let home = nonEmpty("HOME") ?? NSHomeDirectory()
        guard let runtime = runtimeDirectory ?? nonEmpty("XDG_RUNTIME_DIR").map({ $0 + "/pickerd" }) else {
            throw Unresolved(description: "XDG_RUNTIME_DIR is not set: pass --runtime-dir DIR")
        }
        return PickerdPaths(
            runtimeDirectory: runtime,
            dataDirectory: dataDirectory ?? (nonEmpty("XDG_DATA_HOME") ?? home + "/.local/share") + "/pickerd",
            configDirectory: configDirectory ?? (nonEmpty("XDG_CONFIG_HOME") ?? home + "/.config") + "/pickerd")
    }
}
