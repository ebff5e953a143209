/// Google Photos Takeout's JSON sidecars among the files a walk found, matched by name to the
/// photos and videos they describe, the way Takeout names them (only within one folder: Takeout
/// writes a sidecar beside its photo, `Takeout/Google Photos/<album or "Photos from YYYY">/`):
///
/// - `NAME.jpg.supplemental-metadata.json`, and the older `NAME.jpg.json`;
/// - the whole name cut to 51 characters by cutting the "supplemental-metadata" part:
///   `PXL_20260316_081523123.jpg.supplemental-metada.json`, `….suppl.json`, `NAME.jpg..json`; the
///   older layout cut the media name itself (`Screenshot_2019-…_com.goo.json`), matched as the
///   longest sidecar name the media name starts with;
/// - a photo written `NAME(1).jpg` because the name was taken has `NAME.jpg.supplemental-metadata(1).json`
///   (older: `NAME.jpg(1).json`);
/// - an edited version (`NAME-edited.jpg` and its languages, ``PhotoCopies/originals(ofEdited:)``)
///   has no sidecar of its own: it shares its original's.
///
/// Names only: the sidecars are read (by a reader, ``FileReading/probe(path:timeZone:readPeople:)``)
/// when their photo is. Album folders' `metadata.json` (`title`, `description`, `date`) is
/// recognised and left alone: the store keeps no album titles yet.
public struct TakeoutSidecars {
    /// The sidecar of each photo or video that has one, by the media file's path.
    var sidecar: [String: String] = [:]
    /// Sidecars and album metadata files: neither media nor files to name as skipped.
    var notMedia: Set<String> = []
    /// Sidecars that name no photo beside them, by path, with why.
    var unmatched: [String: String] = [:]

    /// The name of an album folder's metadata in Takeout's languages.
    static let albumMetadataNames: Set<String> = ["metadata.json", "metadaten.json", "métadonnées.json", "metadatos.json", "metadati.json",
                                                  "metadane.json", "metagegevens.json"]
    /// Extensions of the media Google Photos keeps, lowercased: a `NAME.<one of these>.json` is a sidecar.
    static let mediaExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "png", "gif", "webp", "avif", "tif", "tiff", "dng", "raw",
                                               "cr2", "nef", "arw", "bmp", "mp4", "mov", "m4v", "3gp", "mkv", "avi", "mts", "wmv", "mpg"]
    /// How long Takeout lets a sidecar's name be; names this long or a few shorter may be cut.
    static let cutNameLength = 46

    /// Finds the sidecars among `paths`.
    init(_ paths: [String]) {
        var folders: [String: [String]] = [:]
        for path in paths {
            let slash = path.lastIndex(of: "/")
            let folder = slash.map { String(path[..<$0]) } ?? ""
            let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
            folders[folder, default: []].append(name)
        }
        for (folder, names) in folders {
            let jsons = names.filter { $0.lowercased().hasSuffix(".json") }
            guard !jsons.isEmpty else { continue }
            func full(_ name: String) -> String { folder + "/" + name }
            // Each sidecar by what it names (the media name without a "(n)", and the n).
            var byKey: [Key: String] = [:]
            var cut: [(base: String, dup: String, name: String)] = []
            for json in jsons.sorted() {
                if Self.albumMetadataNames.contains(json.lowercased()) {
                    notMedia.insert(full(json))
                    continue
                }
                guard let key = Self.key(ofSidecar: json) else { continue }
                if byKey[key] == nil { byKey[key] = json }
                if json.count >= Self.cutNameLength { cut.append((key.base, key.dup, json)) }
            }
            var used = Set<String>()
            for name in names.sorted() where !name.lowercased().hasSuffix(".json") {
                let media = Self.key(ofMedia: name)
                var found = byKey[media] ?? byKey[Key(base: name, dup: "")]
                if found == nil, let originals = PhotoCopies.originals(ofEdited: name) {
                    found = originals.lazy.compactMap { byKey[Self.key(ofMedia: $0)] }.first
                }
                if found == nil {
                    // A name Takeout cut: the longest cut sidecar name the media's name starts with.
                    found = cut.filter { $0.dup == media.dup && media.base.hasPrefix($0.base) && $0.base.count < media.base.count }
                        .max { ($0.base.count, $1.name) < ($1.base.count, $0.name) }?.name
                }
                if let found {
                    sidecar[full(name)] = full(found)
                    used.insert(found)
                }
            }
            for (key, json) in byKey where !used.contains(json) {
                notMedia.insert(full(json))
                unmatched[full(json)] = "a Google Photos sidecar that names no photo beside it (no \(key.base)\(key.dup.isEmpty ? "" : " " + key.dup))"
            }
            for json in used { notMedia.insert(full(json)) }
        }
    }

    /// What a sidecar names: a media file's name (without Takeout's "(n)") and its "(n)" or "".
    struct Key: Hashable {
        var base: String
        var dup: String
    }

    /// The media a sidecar's name names, or `nil` when the name is no sidecar's: neither a
    /// (possibly cut) `.supplemental-metadata` nor a media extension before `.json`, nor cut.
    static func key(ofSidecar name: String) -> Key? {
        var stem = String(name.dropLast(5))  // ".json"
        let dup = trailingNumber(&stem)
        guard let dot = stem.lastIndex(of: ".") else { return nil }
        let tail = stem[stem.index(after: dot)...]
        if "supplemental-metadata".hasPrefix(tail.lowercased()) {
            let base = String(stem[..<dot])
            return base.isEmpty ? nil : Key(base: base, dup: dup)
        }
        // The older NAME.jpg.json, or a name cut inside the media's own name.
        guard mediaExtensions.contains(tail.lowercased()) || name.count >= cutNameLength else { return nil }
        return Key(base: stem, dup: dup)
    }

    /// A media file's name as a sidecar names it: `NAME(1).jpg` is `NAME.jpg` with "(1)".
    static func key(ofMedia name: String) -> Key {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return Key(base: name, dup: "") }
        var stem = String(name[..<dot])
        let dup = trailingNumber(&stem)
        return Key(base: stem + name[dot...], dup: dup)
    }

    /// Cuts a trailing "(n)" (n digits) off `text` and returns it, or "".
    private static func trailingNumber(_ text: inout String) -> String {
        guard text.hasSuffix(")"), let open = text.lastIndex(of: "(") else { return "" }
        let digits = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return "" }
        let dup = String(text[open...])
        text = String(text[..<open])
        return dup
    }
}

extension TakeoutSidecars {
    /// A photo's or video's metadata completed from its Google Photos Takeout sidecar: the time,
    /// place and people Google kept, where the file's own metadata lacks them (Takeout's downloads
    /// and edits often lose the EXIF). Done where the sidecar is read, in the reader.
    ///
    /// Where both give a time or a place, the file's own wins, even when they differ: EXIF is the
    /// camera's word and carries the local offset the person lived in (the sidecar's time is bare
    /// UTC seconds), and Google's time for a photo it received without one is when it was uploaded.
    /// The cost: a date or place the person corrected in Google Photos, which Google writes only to
    /// the sidecar, is not taken when the file states its own. A file with only a digitizing date
    /// (a scan) keeps it: Google's taking time for a scan is that date or the upload's.
    public static func complete(_ media: inout ProbedMedia, people: inout [String], from sidecar: ProbedMedia, people named: [String]) {
        guard sidecar.kind == .sidecar else { return }
        if media.takenAtMs == nil, media.digitizedAtMs == nil, let taken = sidecar.takenAtMs {
            media.takenAtMs = taken
            media.utcOffsetSeconds = nil  // Google keeps no offset: the person's zone places it in the day
        }
        if media.coordinate == nil { media.coordinate = sidecar.coordinate }
        if people.isEmpty { people = named }
    }
}
