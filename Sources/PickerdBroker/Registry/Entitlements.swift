import Foundation
import PickerdTransport
import PickerdWire
import Synchronization

/// The entitlement gate: may this app present the picker?
public enum EntitlementGate {
    /// The key that must be `true` in an app's entitlements plist for it to present the picker.
    public static let journalAllowKey = "com.apple.developer.journal.allow"
    /// The key that must be `true` for an app to donate media and State of Mind (pickerd's own: Apple
    /// has these arrive through HealthKit and the media frameworks, which Linux does not have).
    public static let donationsKey = "org.pickerd.journal.donations"

    /// SHA-256 digests of executables already hashed, by file signature: a pinned app pays for
    /// hashing its executable once, not at every presentation. A changed file has a new signature.
    private static let digests = Mutex<[FileVersion: String]>([:])
    /// Entitlements files' verdicts already reached, by path and key, with the file's signature.
    private static let plists = Mutex<[String: (FileVersion, String?)]>([:])

    /// Checks an app against its manifest: the executable's hash (when the manifest gives one) and
    /// the entitlements plist (Apple's XML or binary format). The executable's digest is remembered
    /// by its file signature and each entitlements file's verdict by its own.
    /// - Parameters:
    ///   - app: the app's manifest.
    ///   - executable: the running executable's file signature, when it could be read.
    ///   - executableBytes: reads the running executable (through the peer's pidfd) for the hash check.
    ///   - key: the entitlement asked for (``journalAllowKey`` to present, ``donationsKey`` to donate).
    /// - Returns: `nil` when entitled; otherwise why not, for the `notEntitled` error message.
    static func refusal(for app: AppManifest, executable: FileVersion?, executableBytes: () -> [UInt8]?,
                        key: String = journalAllowKey) -> String? {
        if !app.executableSha256.isEmpty {
            var known = executable.flatMap { key in digests.withLock { $0[key] } }
            if known == nil {
                guard let bytes = executableBytes() else {
                    return "\(app.bundleId): the executable could not be read to check its SHA-256"
                }
                let digest = SHA256.hex(bytes)
                if let executable { digests.withLock { $0[executable] = digest } }
                known = digest
            }
            let actual = known!
            guard actual == app.executableSha256 else {
                return "\(app.bundleId): the executable's SHA-256 is \(actual), not the registered \(app.executableSha256)"
            }
        }
        let signature = FileVersion(path: app.entitlementsPath), cacheKey = app.entitlementsPath + "\u{0}" + key
        if let signature, let (known, verdict) = plists.withLock({ $0[cacheKey] }), known == signature {
            return verdict.map { "\(app.bundleId): \($0)" }
        }
        let verdict = plistRefusal(app.entitlementsPath, key: key)
        if let signature { plists.withLock { $0[cacheKey] = (signature, verdict) } }
        return verdict.map { "\(app.bundleId): \($0)" }
    }

    /// Why the entitlements file at `path` does not grant `key`, or `nil` when it does.
    static func plistRefusal(_ path: String, key: String = journalAllowKey) -> String? {
        guard FileManager.default.fileExists(atPath: path) else {
            return "the entitlements file \(path) does not exist"
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return "the entitlements file \(path) cannot be read"
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            return "the entitlements file \(path) is not a property list"
        }
        guard let dictionary = plist as? [String: Any] else {
            return "the entitlements file \(path) is not a dictionary"
        }
        guard let value = dictionary[key] else {
            return "\(key) is absent from \(path)"
        }
        guard let allowed = value as? Bool, allowed else {
            return "\(key) is not true in \(path)"
        }
        return nil
    }
}
