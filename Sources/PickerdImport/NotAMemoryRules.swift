public import PickerdStore

/// How the importer tells a photo that is not a memory: a screenshot, a scan, a burst's extra
/// frames. Such files are indexed (the person sees them counted) but the engine never makes them a
/// suggestion's items.
public enum NotAMemoryRules {
    /// Screen sizes of phones, tablets and monitors, smaller side first.
    static let screenSizes: Set<[UInt32]> = [
        [640, 1136], [750, 1334], [828, 1792], [1080, 1920], [1125, 2436], [1170, 2532], [1179, 2556], [1242, 2208],
        [1242, 2688], [1284, 2778], [1290, 2796], [1080, 2340], [1080, 2400], [1440, 3200], [1440, 3120], [1536, 2048],
        [1620, 2160], [1640, 2360], [1668, 2388], [2048, 2732], [768, 1024], [768, 1366], [900, 1440], [900, 1600],
        [1050, 1680], [1080, 2560], [1200, 1920], [1440, 2560], [1600, 2560], [1800, 2880], [2160, 3840], [1964, 3024],
        [2234, 3456], [1117, 1728], [982, 1512], [720, 1280], [800, 1280],
    ]
    /// Words in a file's software, make or model that say a scanner made it.
    static let scannerWords = ["scan", "vuescan", "silverfast", "xsane", "naps2", "perfection", "opticfilm", "canoscan", "imageformula"]

    /// Whether a still or video is a screenshot or a scan, from its metadata and where it is.
    /// - Parameters:
    ///   - media: what the probe read.
    ///   - path: the file's path.
    /// - Returns: `.screenshot`, `.scan`, or `nil` (a burst is told across files: see ``bursts(_:)``).
    public static func classify(_ media: ProbedMedia, path: String) -> NotAMemory? {
        let lowerPath = path.lowercased()
        let name = lowerPath.split(separator: "/").last.map(String.init) ?? lowerPath
        let folders = lowerPath.split(separator: "/").dropLast()
        if folders.contains(where: { $0 == "screenshots" || $0 == "screenshot" || $0 == "screen shots" })
            || name.hasPrefix("screenshot") || name.hasPrefix("screen shot") || name.hasPrefix("screen_shot") {
            return .screenshot
        }
        if [media.software, media.make, media.model].contains(where: { $0.map(Self.namesAScanner) ?? false }) { return .scan }
        guard media.kind == .photo else { return nil }
        let camera = media.make != nil || media.model != nil || media.hasExposure
        let size = [min(media.pixelWidth, media.pixelHeight), max(media.pixelWidth, media.pixelHeight)]
        if !camera && (media.contentType == "image/png" || screenSizes.contains(size)) { return .screenshot }
        return nil
    }

    /// Whether a maker, model or software name holds one of ``scannerWords``, ASCII case folded: a
    /// byte search, as this runs for every file of a first scan (String's generic `contains` showed
    /// as a fifth of the indexer's time in a profile).
    static func namesAScanner(_ name: String) -> Bool {
        let folded = name.utf8.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
        return scannerBytes.contains { word in
            guard folded.count >= word.count else { return false }
            return (0...(folded.count - word.count)).contains { start in
                folded[start] == word[0] && folded[start..<(start + word.count)].elementsEqual(word)
            }
        }
    }

    private static let scannerBytes = scannerWords.map { Array($0.utf8) }

    /// A photo for burst detection: when, by which camera, and Apple's burst key.
    public struct Shot: Sendable, Hashable {
        /// When it was taken, ms since 1970.
        public var takenAtMs: Int64
        /// Make and model together ("" when unknown).
        public var camera: String
        /// The folder it is in.
        public var folder: String
        /// Apple's BurstUUID, when the file has one.
        public var burst: String?

        /// Creates a shot.
        public init(takenAtMs: Int64, camera: String, folder: String, burst: String?) {
            self.takenAtMs = takenAtMs
            self.camera = camera
            self.folder = folder
            self.burst = burst
        }
    }

    /// Which photos are a burst's extra frames or near-duplicates: after the first of an Apple burst
    /// (same BurstUUID), and any photo taken by the same known camera in the same folder within a
    /// second of the one before it (a burst or a double press, with no key to say so).
    /// - Parameter shots: photos, in any order.
    /// - Returns: the indexes (into `shots`) to mark `.burst`.
    public static func bursts(_ shots: [Shot]) -> Set<Int> {
        var marked = Set<Int>()
        var firstOfBurst: [String: Int] = [:]
        for (index, shot) in shots.enumerated().sorted(by: { ($0.element.takenAtMs, $0.offset) < ($1.element.takenAtMs, $1.offset) }) {
            guard let key = shot.burst else { continue }
            if firstOfBurst[key] == nil { firstOfBurst[key] = index } else { marked.insert(index) }
        }
        let byFolder = Dictionary(grouping: shots.indices.filter { !shots[$0].camera.isEmpty && shots[$0].burst == nil },
                                  by: { shots[$0].folder + "\u{0}" + shots[$0].camera })
        for (_, indexes) in byFolder {
            let ordered = indexes.sorted { (shots[$0].takenAtMs, $0) < (shots[$1].takenAtMs, $1) }
            for (previous, index) in zip(ordered, ordered.dropFirst()) where shots[index].takenAtMs - shots[previous].takenAtMs <= 1_000 {
                marked.insert(index)
            }
        }
        return marked
    }
}
