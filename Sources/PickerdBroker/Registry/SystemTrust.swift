import Foundation
import Glibc
import PickerdWire

/// Whether a system app's files are the system's: the stand-in for a code signature on Linux. The
/// manifest, the executable and the entitlements file, and every folder above each, must be owned by
/// root and writable by no one else (a world-writable folder only with the sticky bit, as /tmp),
/// so that no user, the person included, can change what the app is or what it may do.
enum SystemTrust {
    /// Why an app's files are not the system's, or `nil` when they are.
    /// - Parameter app: a manifest found under a system directory.
    static func problem(_ app: AppManifest) -> String? {
        var files = [("manifest", app.manifestPath), ("entitlements file", app.entitlementsPath)]
        if !app.executablePath.isEmpty { files.insert(("executable", app.executablePath), at: 1) }
        for (what, path) in files {
            if let problem = problem(file: path) { return "its \(what) \(problem)" }
        }
        return nil
    }

    /// Why a file (links resolved) or a folder above it could be changed by someone other than
    /// root, or `nil` when it cannot.
    static func problem(file path: String) -> String? {
        guard let resolved = AppRegistry.resolved(path) else { return "\(path) cannot be found" }
        var st = stat()
        guard stat(resolved, &st) == 0 else { return "\(resolved) cannot be read" }
        if let problem = ownership(st) { return "\(resolved) \(problem)" }
        var folder = (resolved as NSString).deletingLastPathComponent
        while true {
            guard stat(folder, &st) == 0 else { return "the folder \(folder) cannot be read" }
            if let problem = ownership(st, folder: true) { return "is in \(folder), which \(problem)" }
            if folder == "/" || folder.isEmpty { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }

    private static func ownership(_ st: stat, folder: Bool = false) -> String? {
        if st.st_uid != 0 { return "is owned by uid \(st.st_uid), not root" }
        let writable = st.st_mode & (S_IWGRP | S_IWOTH)
        if writable != 0 && !(folder && st.st_mode & S_ISVTX != 0) {
            return st.st_mode & S_IWOTH != 0 ? "is writable by everyone" : "is writable by its group"
        }
        return nil
    }
}
