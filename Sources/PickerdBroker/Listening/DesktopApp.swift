import Foundation
import Glibc

/// A player's application as its `.desktop` file describes it (the freedesktop Desktop Entry
/// specification): its name, categories and icon, found from the player's MPRIS `DesktopEntry`.
struct DesktopApp: Hashable, Sendable {
    /// The desktop file id ("org.gnome.Lollypop").
    var id: String
    /// `Name=` (the untranslated one).
    var name: String
    /// `Categories=`.
    var categories: [String]
    /// `Keywords=`.
    var keywords: [String]
    /// `Icon=`, resolved to a PNG file; `nil` when none was found.
    var iconPath: String?

    /// The largest `.desktop` file read.
    static let maximumFileBytes = 64 << 10
    /// The largest icon taken.
    static let maximumIconBytes = 1 << 20
    /// Icon sizes looked for in the hicolor theme, best first.
    static let iconSizes = [128, 256, 96, 64, 48, 512, 32, 24, 22, 16]

    /// Where applications and icons are looked for: `$XDG_DATA_HOME` (default `~/.local/share`), then
    /// each of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`).
    /// - Parameter environment: pickerd's environment.
    static func dataDirectories(_ environment: [String: String]) -> [String] {
        let home = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["HOME"].map { $0 + "/.local/share" }
        let dirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return (home.map { [$0] } ?? []) + dirs
    }

    /// The application with desktop file id `id` (`<dir>/applications/<id>.desktop`, first found).
    /// - Parameters:
    ///   - id: a desktop file id, with or without ".desktop".
    ///   - directories: data directories, from ``dataDirectories(_:)``.
    /// - Returns: the application, `nil` when no readable file has that id.
    static func find(_ id: String, in directories: [String]) -> DesktopApp? {
        let id = id.hasSuffix(".desktop") ? String(id.dropLast(8)) : id
        guard !id.isEmpty, !id.contains("/"), id != ".", id != ".." else { return nil }
        for directory in directories {
            guard let bytes = BoundedFile.read(directory + "/applications/" + id + ".desktop", limit: maximumFileBytes) else { continue }
            let fields = parse(String(decoding: bytes, as: UTF8.self))
            guard let name = fields["Name"], !name.isEmpty else { continue }
            let list = { (key: String) in (fields[key] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            return DesktopApp(id: id, name: name, categories: list("Categories"), keywords: list("Keywords"),
                              iconPath: fields["Icon"].flatMap { icon(named: $0, in: directories) })
        }
        return nil
    }

    /// The keys of a desktop file's `[Desktop Entry]` group (localized keys such as `Name[fr]` aside).
    static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        var inEntry = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                inEntry = line == "[Desktop Entry]"
                continue
            }
            guard inEntry, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.contains("["), fields[key] == nil else { continue }
            fields[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// The PNG file an `Icon=` value stands for: an absolute path, or a name looked up in the
    /// hicolor theme (`<dir>/icons/hicolor/<n>x<n>/apps/<name>.png`, the sizes of ``iconSizes`` in
    /// turn) and then in `<dir>/pixmaps/<name>.png`. Only a PNG of at most ``maximumIconBytes``.
    static func icon(named icon: String, in directories: [String]) -> String? {
        func usable(_ path: String) -> Bool {
            guard let bytes = BoundedFile.read(path, limit: maximumIconBytes) else { return false }
            return ImageHeader(bytes)?.contentType == "image/png"
        }
        if icon.hasPrefix("/") { return usable(icon) ? icon : nil }
        let name = icon.hasSuffix(".png") ? String(icon.dropLast(4)) : icon
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return nil }
        for directory in directories {
            for size in iconSizes {
                let path = "\(directory)/icons/hicolor/\(size)x\(size)/apps/\(name).png"
                if usable(path) { return path }
            }
        }
        return directories.lazy.map { "\($0)/pixmaps/\(name).png" }.first(where: usable)
    }

    /// Apps that play podcasts, by desktop file id or MPRIS name (lowercased), for those whose
    /// `.desktop` file does not say so.
    static let podcastApps: Set<String> = ["gpodder", "org.gpodder.gpodder", "org.gnome.podcasts", "podcasts", "org.kde.kasts", "kasts",
                                           "com.github.needleandthread.vocal", "vocal"]

    /// Whether the app is for podcasts: its categories or keywords say "podcast", or it is a known podcast app.
    var isPodcastApp: Bool {
        (categories + keywords).contains { $0.range(of: "podcast", options: .caseInsensitive) != nil }
            || Self.podcastApps.contains(id.lowercased())
    }

    /// Whether what it plays is not music even when it names an artist: a web browser, a video
    /// player (Video without Audio), a book reader.
    var isNotAMusicPlayer: Bool {
        categories.contains("WebBrowser") || categories.contains("Literature")
            || (categories.contains("Video") && !categories.contains("Audio"))
    }
}
