import Foundation
import Glibc
public import PickerdWire
import Synchronization

/// The app registry: who may present the picker. Three kinds of app, as xdg-desktop-portal tells
/// host and Flatpak callers apart (Documentation/design.md, "App identity and registration"):
/// - **system**: a manifest under `$XDG_DATA_DIRS/pickerd/apps/` whose manifest, executable and
///   entitlements file (and every folder above them) are owned by root and writable by no one else:
///   the Linux stand-in for a code signature. No registration; allowed unless the person revoked it.
/// - **Flatpak**: known by the app id in its sandbox's `.flatpak-info`; its manifest is a system one
///   naming `flatpakAppID`, or one the person registered (then pending until allowed).
/// - **developer**: a build registered with `pickerctl apps register` in `<config-dir>/apps/`;
///   pending until the person allows it in the trusted picker (or pickerd runs in developer mode).
///
/// A caller is matched by the executable file the kernel hands through its pidfd (device and inode),
/// never by a path string or anything it says.
public struct AppRegistry: Sendable {
    /// The directory of developers' registrations.
    public let directory: String
    /// The directories of system-installed manifests, in `$XDG_DATA_DIRS` order.
    public let systemDirectories: [String]
    /// The manifests as last read, with the signature of each file then: a request lists the
    /// directory and compares signatures, and only a changed file is read and decoded again.
    private let cache = ManifestCache()

    private final class ManifestCache: Sendable {
        let entries = Mutex<[String: (FileVersion, Result<AppManifest, BrokerError>)]>([:])
    }

    /// Opens the registry in `<configDirectory>/apps` (created, mode 0700, when missing).
    /// - Parameters:
    ///   - configDirectory: pickerd's configuration directory.
    ///   - dataDirectories: `$XDG_DATA_DIRS` (default: the environment's, else `/usr/local/share:/usr/share`).
    public init(configDirectory: String, dataDirectories: [String]? = nil) {
        directory = configDirectory + "/apps"
        let environment = ProcessInfo.processInfo.environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 }
        let dirs = dataDirectories ?? (environment ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        systemDirectories = dirs.filter { $0.hasPrefix("/") }.map { $0 + "/pickerd/apps" }
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
        var flatpakAppID: String?

        init(bundleID: String, displayName: String, executablePath: String, executableSHA256: String?, entitlementsPath: String,
             notificationURLFormat: String?, launchCommand: [String]?, flatpakAppID: String?) {
            self.bundleID = bundleID
            self.displayName = displayName
            self.executablePath = executablePath
            self.executableSHA256 = executableSHA256
            self.entitlementsPath = entitlementsPath
            self.notificationURLFormat = notificationURLFormat
            self.launchCommand = launchCommand
            self.flatpakAppID = flatpakAppID
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            bundleID = try c.decode(String.self, forKey: .bundleID)
            displayName = try c.decodeIfPresent(String.self, forKey: .displayName) ?? bundleID
            executablePath = try c.decodeIfPresent(String.self, forKey: .executablePath) ?? ""
            executableSHA256 = try c.decodeIfPresent(String.self, forKey: .executableSHA256)
            entitlementsPath = try c.decode(String.self, forKey: .entitlementsPath)
            notificationURLFormat = try c.decodeIfPresent(String.self, forKey: .notificationURLFormat)
            launchCommand = try c.decodeIfPresent([String].self, forKey: .launchCommand)
            flatpakAppID = try c.decodeIfPresent(String.self, forKey: .flatpakAppID)
        }
    }

    /// Every app that may present or asks to: system manifests first (in `$XDG_DATA_DIRS` order),
    /// then developers' registrations; one per bundle id (a system app wins). Each has its `kind`,
    /// `manifestPath` and, when a check fails, its `problem`. Manifests that cannot be read are
    /// skipped (and named in ``problems()``).
    /// - Returns: the manifests, sorted by bundle id.
    public func apps() -> [AppManifest] {
        var seen = Set<String>()
        var all: [AppManifest] = []
        for directory in systemDirectories {
            for case .success(var app) in load(directory) where seen.insert(app.bundleId).inserted {
                app.kind = .system
                if let problem = SystemTrust.problem(app) {
                    app.problem = "\(app.bundleId) is not a system app: \(problem)"
                }
                all.append(app)
            }
        }
        for case .success(var app) in load(directory) {
            guard seen.insert(app.bundleId).inserted else { continue }
            app.kind = app.flatpakAppId.isEmpty ? .developer : .flatpak
            all.append(app)
        }
        return all.sorted { $0.bundleId < $1.bundleId }
    }

    /// Manifests that could not be read, with why.
    /// - Returns: one line per unreadable manifest.
    public func problems() -> [String] {
        (systemDirectories + [directory]).flatMap(load).compactMap { result in
            if case .failure(let error) = result { return error.message }
            return nil
        }
    }

    private func load(_ directory: String) -> [Result<AppManifest, BrokerError>] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return files.map { name in
            let path = directory + "/" + name
            let signature = FileVersion(path: path)
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
                                        launchCommand: file.launchCommand ?? [], flatpakAppId: file.flatpakAppID ?? "",
                                        manifestPath: path))
        } catch {
            return .failure(BrokerError("the app manifest \(path) is not valid: \(error)"))
        }
    }

    /// Registers (or replaces) a developer's build, or a Flatpak by its app id. Paths are made
    /// absolute, the executable must exist, and the entitlements file must allow presenting now:
    /// a registration that could never present is refused at once. The app is pending until the
    /// person allows it in the trusted picker.
    /// - Parameter app: the manifest.
    /// - Returns: the manifest as stored.
    /// - Throws: ``BrokerError`` naming what is wrong.
    @discardableResult
    public func register(_ app: AppManifest) throws(BrokerError) -> AppManifest {
        var app = app
        if app.flatpakAppId.isEmpty {
            guard !app.executablePath.isEmpty else { throw BrokerError("an app needs an executable path (or --flatpak-app-id ID)") }
            app.executablePath = Self.canonical(app.executablePath)
            guard FileManager.default.isExecutableFile(atPath: app.executablePath) else {
                throw BrokerError("\(app.executablePath) is not an executable file")
            }
        } else {
            guard app.executablePath.isEmpty else { throw BrokerError("a Flatpak is known by its app id: give no executable") }
            guard Self.isFlatpakAppID(app.flatpakAppId) else {
                throw BrokerError("'\(app.flatpakAppId)' is not a Flatpak app id (reverse DNS, at least three parts: org.example.Journal)")
            }
        }
        guard !app.entitlementsPath.isEmpty else { throw BrokerError("an app needs an entitlements file (--entitlements FILE)") }
        app.entitlementsPath = Self.canonical(app.entitlementsPath)
        // An app presents (the journal key), donates (the donations key), or both: it must ask for one.
        if let refusal = EntitlementGate.plistRefusal(app.entitlementsPath),
           EntitlementGate.plistRefusal(app.entitlementsPath, key: EntitlementGate.donationsKey) != nil {
            throw BrokerError("not registered: \(refusal); the entitlements must set \(EntitlementGate.journalAllowKey) "
                              + "(to present) or \(EntitlementGate.donationsKey) (to donate) to true")
        }
        let name = app.flatpakAppId.isEmpty ? URL(fileURLWithPath: app.executablePath).lastPathComponent : app.flatpakAppId
        if app.bundleId.isEmpty { app.bundleId = app.flatpakAppId.isEmpty ? "local." + name : app.flatpakAppId }
        guard app.bundleId.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
            throw BrokerError("'\(app.bundleId)' is not a bundle id (letters, digits, '.', '-' and '_' only)")
        }
        if let system = apps().first(where: { $0.bundleId == app.bundleId && $0.kind == .system }) {
            throw BrokerError("\(app.bundleId) is a system app (\(system.manifestPath)): it needs no registration")
        }
        if app.displayName.isEmpty { app.displayName = name }
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
                                launchCommand: app.launchCommand.isEmpty ? nil : app.launchCommand,
                                flatpakAppID: app.flatpakAppId.isEmpty ? nil : app.flatpakAppId)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let path = directory + "/\(app.bundleId).json"
        do {
            try encoder.encode(file).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw BrokerError("cannot write the app manifest in \(directory): \(error.localizedDescription)")
        }
        app.manifestPath = path
        app.kind = app.flatpakAppId.isEmpty ? .developer : .flatpak
        return app
    }

    /// Whether `id` has the shape of a Flatpak app id (reverse DNS, three parts or more).
    static func isFlatpakAppID(_ id: String) -> Bool {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } }
    }

    /// Removes an app's manifest.
    /// - Parameter bundleID: the app.
    /// - Returns: whether it was registered.
    public func remove(bundleID: String) -> Bool {
        guard let app = app(bundleID: bundleID), app.kind != .system else { return false }
        try? FileManager.default.removeItem(atPath: directory + "/\(app.bundleId).json")
        return true
    }

    /// The app registered under `bundleID`.
    /// - Parameter bundleID: a bundle id (empty matches none).
    /// - Returns: its manifest, if registered.
    public func app(bundleID: String) -> AppManifest? {
        apps().first { $0.bundleId == bundleID && !bundleID.isEmpty }
    }

    /// The app a caller is: a Flatpak by the app id its sandbox's `.flatpak-info` gives, anything
    /// else by its executable file (device and inode, as the kernel hands it), never by a path.
    /// - Parameters:
    ///   - executable: the caller's executable file.
    ///   - flatpakAppID: the caller's Flatpak app id, when it runs in a Flatpak sandbox.
    /// - Returns: its manifest, if it has one.
    func app(executable: FileIdentity?, flatpakAppID: String?) -> AppManifest? {
        let apps = apps()
        if let flatpakAppID {
            // A Flatpak's executable lives in its own /app: only its app id names it.
            return apps.first { $0.flatpakAppId == flatpakAppID }
        }
        guard let executable else { return nil }
        return apps.first { !$0.executablePath.isEmpty && FileIdentity(path: $0.executablePath) == executable }
    }

    /// The path with links resolved (`realpath`), or `nil` when it does not exist: for checks on
    /// what a path is now (a source folder, a system app's files).
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).resolvingSymlinksInPath().standardizedFileURL.path
    }
}
