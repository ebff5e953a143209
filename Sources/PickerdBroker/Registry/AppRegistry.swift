import Foundation
public import PickerdWire
import Synchronization

/// The app registry: one JSON manifest per app in `<config-dir>/apps/`, naming the app's bundle id,
/// display name, executable (and optionally its SHA-256), entitlements plist, and notification URL
/// format. pickerd matches a connecting process to a manifest by the executable the kernel reports
/// for it, never by anything the process says.
public struct AppRegistry: Sendable {
    /// The directory of manifests.
    public let directory: String
    /// The manifests as last read, with the signature of each file then: a request lists the
    /// directory and compares signatures, and only a changed file is read and decoded again.
    private let cache = ManifestCache()

    private final class ManifestCache: Sendable {
        let entries = Mutex<[String: (FileSignature, Result<AppManifest, BrokerError>)]>([:])
    }

    /// Opens the registry in `<configDirectory>/apps` (created, mode 0700, when missing).
    /// - Parameter configDirectory: pickerd's configuration directory.
    public init(configDirectory: String) {
        directory = configDirectory + "/apps"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
    }

    /// The manifest file's JSON shape.
    struct ManifestFile: Codable {
        var bundleID: String
        var displayName: String
        var executablePath: String
        var executableSHA256: String?
        var entitlementsPath: String
        var notificationURLFormat: String?
        var launchCommand: [String]?
    }

    /// Every registered app, by bundle id. Manifests that cannot be read are skipped (and named in
    /// ``problems()``).
    /// - Returns: the manifests, sorted by bundle id.
    public func apps() -> [AppManifest] {
        load().compactMap { try? $0.get() }.sorted { $0.bundleId < $1.bundleId }
    }

    /// Manifests that could not be read, with why.
    /// - Returns: one line per unreadable manifest.
    public func problems() -> [String] {
        load().compactMap { result in
            if case .failure(let error) = result { return error.message }
            return nil
        }
    }

    private func load() -> [Result<AppManifest, BrokerError>] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return files.map { name in
            let path = directory + "/" + name
            let signature = FileSignature(path: path)
            if let signature, let (known, result) = cache.entries.withLock({ $0[path] }), known == signature { return result }
            let result = read(path)
            if let signature { cache.entries.withLock { $0[path] = (signature, result) } }
            return result
        }
    }

    private func read(_ path: String) -> Result<AppManifest, BrokerError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(BrokerError("cannot read the app manifest \(path)"))
        }
        do {
            let file = try JSONDecoder().decode(ManifestFile.self, from: data)
            return .success(AppManifest(bundleId: file.bundleID, displayName: file.displayName,
                                        executablePath: file.executablePath, executableSha256: file.executableSHA256 ?? "",
                                        entitlementsPath: file.entitlementsPath,
                                        notificationUrlFormat: file.notificationURLFormat ?? "",
                                        launchCommand: file.launchCommand ?? []))
        } catch {
            return .failure(BrokerError("the app manifest \(path) is not valid: \(error)"))
        }
    }

    /// Registers (or replaces) an app. Paths are made absolute and the executable must exist.
    /// - Parameter app: the manifest.
    /// - Returns: the manifest as stored.
    /// - Throws: ``BrokerError`` naming what is wrong.
    @discardableResult
    public func register(_ app: AppManifest) throws(BrokerError) -> AppManifest {
        var app = app
        guard !app.executablePath.isEmpty else { throw BrokerError("an app needs an executable path") }
        app.executablePath = Self.canonical(app.executablePath)
        guard FileManager.default.isExecutableFile(atPath: app.executablePath) else {
            throw BrokerError("\(app.executablePath) is not an executable file")
        }
        guard !app.entitlementsPath.isEmpty else { throw BrokerError("an app needs an entitlements file (--entitlements FILE)") }
        app.entitlementsPath = Self.canonical(app.entitlementsPath)
        if app.bundleId.isEmpty { app.bundleId = "local." + URL(fileURLWithPath: app.executablePath).lastPathComponent }
        guard app.bundleId.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
            throw BrokerError("'\(app.bundleId)' is not a bundle id (letters, digits, '.', '-' and '_' only)")
        }
        if app.displayName.isEmpty { app.displayName = URL(fileURLWithPath: app.executablePath).lastPathComponent }
        app.executableSha256 = app.executableSha256.lowercased()
        if !app.notificationUrlFormat.isEmpty {
            guard app.notificationUrlFormat.contains("{journaling-suggestion-id}") else {
                throw BrokerError("a JSNotificationURLFormat must contain {journaling-suggestion-id}")
            }
        }
        let file = ManifestFile(bundleID: app.bundleId, displayName: app.displayName, executablePath: app.executablePath,
                                executableSHA256: app.executableSha256.isEmpty ? nil : app.executableSha256,
                                entitlementsPath: app.entitlementsPath,
                                notificationURLFormat: app.notificationUrlFormat.isEmpty ? nil : app.notificationUrlFormat,
                                launchCommand: app.launchCommand.isEmpty ? nil : app.launchCommand)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(file).write(to: URL(fileURLWithPath: directory + "/\(app.bundleId).json"), options: .atomic)
        } catch {
            throw BrokerError("cannot write the app manifest in \(directory): \(error.localizedDescription)")
        }
        return app
    }

    /// Removes an app's manifest.
    /// - Parameter bundleID: the app.
    /// - Returns: whether it was registered.
    public func remove(bundleID: String) -> Bool {
        guard let app = app(bundleID: bundleID) else { return false }
        try? FileManager.default.removeItem(atPath: directory + "/\(app.bundleId).json")
        return true
    }

    /// The app registered under `bundleID`.
    /// - Parameter bundleID: a bundle id (empty matches none).
    /// - Returns: its manifest, if registered.
    public func app(bundleID: String) -> AppManifest? {
        apps().first { $0.bundleId == bundleID && !bundleID.isEmpty }
    }

    /// The app whose executable is `executablePath`.
    /// - Parameter executablePath: a resolved executable path.
    /// - Returns: its manifest, if registered.
    public func app(forExecutable executablePath: String) -> AppManifest? {
        let apps = apps()
        // The kernel's path (`/proc/<pid>/exe`) is already absolute and resolved: most lookups
        // match it as it is, without resolving it again.
        if let app = apps.first(where: { $0.executablePath == executablePath }) { return app }
        let path = Self.canonical(executablePath)
        return apps.first { $0.executablePath == path }
    }

    static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).resolvingSymlinksInPath().standardizedFileURL.path
    }
}
