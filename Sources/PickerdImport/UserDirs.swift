public import Foundation

/// The person's XDG user folders for pictures and videos, as `xdg-user-dirs` records them in
/// `$XDG_CONFIG_HOME/user-dirs.dirs` (lines such as `XDG_PICTURES_DIR="$HOME/Pictures"`).
public enum UserDirs {
    /// The Pictures and Videos folders the file names, that exist, in that order (each once).
    /// - Parameter environment: where `HOME` and `XDG_CONFIG_HOME` come from.
    /// - Returns: absolute paths; empty when the file is missing or names neither.
    public static func mediaFolders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        guard let home = environment["HOME"], !home.isEmpty else { return [] }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        guard let text = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8) else { return [] }
        var found: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = String(trimmed[..<equals])
            guard key == "XDG_PICTURES_DIR" || key == "XDG_VIDEOS_DIR" else { continue }
            var value = String(trimmed[trimmed.index(after: equals)...])
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            // The format allows only "$HOME/…" or an absolute path.
            if value.hasPrefix("$HOME") { value = home + value.dropFirst(5) }
            guard value.hasPrefix("/") else { continue }
            // A folder set to $HOME itself means "disabled" in xdg-user-dirs' words.
            if value == home || value == home + "/" { continue }
            found[key] = value
        }
        var folders: [String] = []
        for key in ["XDG_PICTURES_DIR", "XDG_VIDEOS_DIR"] {
            guard let path = found[key], !folders.contains(path) else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { folders.append(path) }
        }
        return folders
    }
}
