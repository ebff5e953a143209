import Foundation
import Glibc

/// A fresh directory under /tmp with a short name (Unix socket paths must stay under 108 bytes),
/// removed with everything in it when the object goes away.
public final class TemporaryDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates the directory (`mkdtemp(3)`).
    /// - Parameter prefix: the start of its name, under /tmp.
    /// - Throws: `CocoaError` when it cannot be created.
    public init(prefix: String = "pkd") throws {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
