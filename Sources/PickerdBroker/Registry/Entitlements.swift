import Foundation
import PickerdTransport
public import PickerdWire

/// The entitlement gate: may this app present the picker?
public enum EntitlementGate {
    /// The key that must be `true` in an app's entitlements plist.
    public static let journalAllowKey = "com.apple.developer.journal.allow"

    /// Checks an app against its manifest: the executable's hash (when the manifest gives one) and
    /// the entitlements plist (Apple's XML or binary format).
    /// - Parameters:
    ///   - app: the app's manifest.
    ///   - executableBytes: reads the running executable (through the peer's pidfd) for the hash check.
    /// - Returns: `nil` when entitled; otherwise why not, for the `notEntitled` error message.
    public static func refusal(for app: AppManifest, executableBytes: () -> [UInt8]?) -> String? {
        if !app.executableSha256.isEmpty {
            guard let bytes = executableBytes() else {
                return "\(app.bundleId): the executable could not be read to check its SHA-256"
            }
            let actual = SHA256.hex(bytes)
            guard actual == app.executableSha256 else {
                return "\(app.bundleId): the executable's SHA-256 is \(actual), not the registered \(app.executableSha256)"
            }
        }
        guard FileManager.default.fileExists(atPath: app.entitlementsPath) else {
            return "\(app.bundleId): the entitlements file \(app.entitlementsPath) does not exist"
        }
        guard let data = FileManager.default.contents(atPath: app.entitlementsPath) else {
            return "\(app.bundleId): the entitlements file \(app.entitlementsPath) cannot be read"
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            return "\(app.bundleId): the entitlements file \(app.entitlementsPath) is not a property list"
        }
        guard let dictionary = plist as? [String: Any] else {
            return "\(app.bundleId): the entitlements file \(app.entitlementsPath) is not a dictionary"
        }
        guard let value = dictionary[journalAllowKey] else {
            return "\(app.bundleId): \(journalAllowKey) is absent from \(app.entitlementsPath)"
        }
        guard let allowed = value as? Bool, allowed else {
            return "\(app.bundleId): \(journalAllowKey) is not true in \(app.entitlementsPath)"
        }
        return nil
    }
}
