import Foundation
import Glibc
import Synchronization

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

extension TemporaryDirectory {
    /// Directories made by ``forThisRun(prefix:)``, removed when the process exits.
    private static let made = Mutex<[String]>([])

    /// A fresh directory under /tmp that outlives the objects using it (a pickerd restarted on the
    /// same store) and is removed, with everything in it, when the test process exits.
    /// - Parameter prefix: the start of its name, under /tmp.
    /// - Returns: its path.
    /// - Throws: `CocoaError` when it cannot be created.
    public static func forThisRun(prefix: String) throws -> String {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        guard let directory = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let path = String(cString: directory)
        let first = made.withLock { list in
            list.append(path)
            return list.count == 1
        }
        if first {
            atexit {
                for path in TemporaryDirectory.made.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
            }
        }
        return path
    }
}
