public import PickerdStore

/// How the importer tells a photo that is not a memory: a screenshot, a scan, a burst's extra
/// frames, a picture a messaging app saved without any camera's metadata, an image that does not
/// decode. Such files are indexed (the person sees them counted, each with its reason:
/// ``describe(_:count:)``) but the engine never makes them a suggestion's items.
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

    /// Folders messaging apps save what they receive into (lower-cased): WhatsApp's `WhatsApp
    /// Images`/`WhatsApp Video` (and `Sent` below them), Telegram's `Telegram Images`/`Telegram
    /// Video` (Android) and `Telegram Desktop`, Signal's `Signal`, Viber's, Messenger's, WeChat's.
    static let messagingFolders: Set<String> = [
        "whatsapp images", "whatsapp video", "whatsapp animated gifs", "whatsapp stickers", "whatsapp", "telegram images",
        "telegram video", "telegram", "telegram desktop", "signal", "viber images", "viber videos", "viber", "messenger", "wechat",
    ]

    /// Whether a file's name or folder says a messaging app saved it: WhatsApp's
    /// `IMG-20240504-WA0001.jpg` and `VID-20240504-WA0001.mp4`, Telegram Desktop's
    /// `photo_2024-05-04_12-30-45.jpg`, Signal's `signal-2024-05-04-123045.jpg`, Messenger's
    /// `received_1234567890.jpeg`, or any file in one of ``messagingFolders``.
    /// - Parameter path: the file's path.
    static func savedByAMessagingApp(_ path: String) -> Bool {
        let parts = path.lowercased().split(separator: "/")
        guard let name = parts.last else { return false }
        if parts.dropLast().contains(where: { messagingFolders.contains(String($0)) }) { return true }
        let bytes = Array(name.utf8)
        func digits(_ range: Range<Int>) -> Bool { range.upperBound <= bytes.count && bytes[range].allSatisfy { (48...57).contains($0) } }
        // WhatsApp: (IMG|VID|AUD|PTT|STK)-YYYYMMDD-WAnnnn…
        if bytes.count > 15, ["img-", "vid-", "stk-"].contains(where: { name.hasPrefix($0) }), digits(4..<12),
           name.utf8.dropFirst(12).starts(with: "-wa".utf8), digits(15..<16) {
            return true
        }
        // Telegram Desktop: photo_YYYY-MM-DD_HH-MM-SS, video_…
        if (name.hasPrefix("photo_") || name.hasPrefix("video_")), let date = name.split(separator: "_").dropFirst().first,
           date.utf8.count == 10, date.split(separator: "-").map(\.count) == [4, 2, 2] {
            return true
        }
        // Signal: signal-YYYY-MM-DD-…
        if name.hasPrefix("signal-"), digits(7..<11), bytes.count > 11, bytes[11] == UInt8(ascii: "-") { return true }
        // Messenger: received_<digits>
        if name.hasPrefix("received_"), digits(9..<12) { return true }
        return false
    }

    /// Words a person can read for a number of items kept out for one reason, as `pickerctl` lists
    /// them: "3 screenshots", "1 picture saved by a messaging app without camera metadata", "2
    /// images that do not decode (cut short)".
    /// - Parameters:
    ///   - reason: the reason.
    ///   - count: how many.
    /// - Returns: the count and its noun phrase, singular for one.
    public static func describe(_ reason: NotAMemory, count: Int) -> String {
        let one = count == 1
        let words = switch reason {
        case .screenshot: one ? "screenshot" : "screenshots"
        case .scan: one ? "scan" : "scans"
        case .burst: one ? "extra burst frame" : "extra burst frames"
        case .messagingImage: one ? "picture saved by a messaging app without camera metadata"
            : "pictures saved by messaging apps without camera metadata"
        case .undecodable: one ? "image that does not decode (cut short)" : "images that do not decode (cut short)"
        }
        return "\(count) \(words)"
    }

    /// ``describe(_:count:)`` for every reason with a count, most first (then in the enum's
    /// order): "3 screenshots, 1 picture saved by a messaging app without camera metadata".
    /// - Parameter counts: items kept out, by reason.
    /// - Returns: the phrases joined by commas; empty when there are none.
    public static func describe(_ counts: [NotAMemory: Int]) -> String {
        phrases(counts).joined(separator: ", ")
    }

    /// ``describe(_:count:)`` for every reason with a count, one phrase each, most first (then in
    /// the enum's order), as `SourceInfo.not_memory_reasons` carries them.
    /// - Parameter counts: items kept out, by reason.
    /// - Returns: the phrases; empty when there are none.
    public static func phrases(_ counts: [NotAMemory: Int]) -> [String] {
        NotAMemory.allCases.enumerated().compactMap { index, reason in counts[reason].flatMap { $0 > 0 ? (reason, $0, index) : nil } }
            .sorted { ($0.1, -$0.2) > ($1.1, -$1.2) }
            .map { describe($0.0, count: $0.1) }
    }

    /// Whether a still or video is not a memory by itself, from its metadata and where it is: a
    /// file whose image data ends early (``ProbedMedia/imageDataEndsEarly``) is `.undecodable`
    /// first of all; then a Screenshots folder or name, a scanner's name; then a picture a
    /// messaging app saved (``savedByAMessagingApp(_:)``) with no camera make and no model, as
    /// WhatsApp, Telegram and Signal strip them (one that keeps a camera's make or model is the
    /// person's own photo sent to themselves, and stays); then a still with no camera at all that
    /// is a PNG or a screen's size.
    /// - Parameters:
    ///   - media: what the probe read.
    ///   - path: the file's path.
    /// - Returns: `.undecodable`, `.screenshot`, `.scan`, `.messagingImage`, or `nil` (a burst is
    ///   told across files: see ``bursts(_:)``).
    public static func classify(_ media: ProbedMedia, path: String) -> NotAMemory? {
        if media.imageDataEndsEarly { return .undecodable }
        let lowerPath = path.lowercased()
        let name = lowerPath.split(separator: "/").last.map(String.init) ?? lowerPath
        let folders = lowerPath.split(separator: "/").dropLast()
        if folders.contains(where: { $0 == "screenshots" || $0 == "screenshot" || $0 == "screen shots" })
            || name.hasPrefix("screenshot") || name.hasPrefix("screen shot") || name.hasPrefix("screen_shot") {
            return .screenshot
        }
        if [media.software, media.make, media.model].contains(where: { $0.map(Self.namesAScanner) ?? false }) { return .scan }
        let cameraNamed = !(media.make ?? "").isEmpty || !(media.model ?? "").isEmpty
        if !cameraNamed, savedByAMessagingApp(path) { return .messagingImage }
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

    /// A photo for burst detection: when, by which camera, Apple's burst key, and what it looks like.
    public struct Shot: Sendable, Hashable {
        /// When it was taken, ms since 1970.
        public var takenAtMs: Int64
        /// Make and model together ("" when unknown).
        public var camera: String
        /// The folder it is in.
        public var folder: String
        /// Apple's BurstUUID, when the file has one.
        public var burst: String?
        /// Its picture's difference hash (``ProbedMedia/pictureHash``), when it was hashed.
        public var pictureHash: UInt64?
        /// How many pixels it has (width × height): of near-duplicates, the largest is kept.
        public var pixels: Int64
        /// Its file's size: of near-duplicates as large as each other, the one of most bytes is kept
        /// (at one size and quality, a sharper picture compresses to more bytes than a blurred one).
        public var bytes: Int64

        /// Creates a shot.
        public init(takenAtMs: Int64, camera: String, folder: String, burst: String?, pictureHash: UInt64? = nil,
                    pixels: Int64 = 0, bytes: Int64 = 0) {
            self.takenAtMs = takenAtMs
            self.camera = camera
            self.folder = folder
            self.burst = burst
            self.pictureHash = pictureHash
            self.pixels = pixels
            self.bytes = bytes
        }
    }

    /// How far apart two near-duplicates may be taken: "seconds apart" (issue 42), a burst, the same
    /// view taken again. A chain of such photos is one scene however long it runs.
    public static let nearDuplicateGapMs: Int64 = 10_000

    /// How many of the 64 bits of two pictures' hashes may differ for them to be one scene: far below
    /// the 32 two unrelated pictures differ in, above what a second's movement of the hand changes.
    public static let nearDuplicateBits = 10

    /// Which photos are a burst's extra frames or near-duplicates:
    /// - after the first of an Apple burst (same BurstUUID);
    /// - of photos that look alike (hashes at most ``nearDuplicateBits`` apart) taken at most
    ///   ``nearDuplicateGapMs`` after one another, whatever camera or folder (a Takeout download has
    ///   neither), all but one (``kept(of:_:)``: the largest, the first unless another is much
    ///   richer in bytes);
    /// - of the photos left, any taken by the same known camera in the same folder within a second
    ///   of the one before it (a burst or a double press, with no key to say so, however its frames
    ///   look).
    /// - Parameter shots: photos, in any order.
    /// - Returns: the indexes (into `shots`) to mark `.burst`.
    public static func bursts(_ shots: [Shot]) -> Set<Int> {
        var marked = Set<Int>()
        var firstOfBurst: [String: Int] = [:]
        for (index, shot) in shots.enumerated().sorted(by: { ($0.element.takenAtMs, $0.offset) < ($1.element.takenAtMs, $1.offset) }) {
            guard let key = shot.burst else { continue }
            if firstOfBurst[key] == nil { firstOfBurst[key] = index } else { marked.insert(index) }
        }
        marked.formUnion(nearDuplicates(shots))
        // What is left, the old way too: a burst of a moving subject need not look alike.
        let byFolder = Dictionary(grouping: shots.indices.filter {
                                      !shots[$0].camera.isEmpty && shots[$0].burst == nil && !marked.contains($0)
                                  },
                                  by: { shots[$0].folder + "\u{0}" + shots[$0].camera })
        for (_, indexes) in byFolder {
            let ordered = indexes.sorted { (shots[$0].takenAtMs, $0) < (shots[$1].takenAtMs, $1) }
            for (previous, index) in zip(ordered, ordered.dropFirst()) where shots[index].takenAtMs - shots[previous].takenAtMs <= 1_000 {
                marked.insert(index)
            }
        }
        return marked
    }

    /// Which of a scene's photos is kept: the largest; of those as large, the first taken, unless
    /// another has a tenth more bytes or more (a blurred frame compresses smaller; a few percent is
    /// the noise of two sharp ones).
    static func kept(of members: [Int], _ shots: [Shot]) -> Int {
        let largest = members.map { shots[$0].pixels }.max()!
        let candidates = members.filter { shots[$0].pixels == largest }.sorted { (shots[$0].takenAtMs, $0) < (shots[$1].takenAtMs, $1) }
        let first = candidates[0]
        let richest = candidates.max { (shots[$0].bytes, -shots[$0].takenAtMs) < (shots[$1].bytes, -shots[$1].takenAtMs) }!
        return Double(shots[richest].bytes) >= 1.1 * Double(shots[first].bytes) ? richest : first
    }

    /// The near-duplicates to mark among photos with a hash and no Apple burst key: each scene (a
    /// chain of look-alikes taken at most ``nearDuplicateGapMs`` apart) keeps one photo.
    static func nearDuplicates(_ shots: [Shot]) -> Set<Int> {
        let hashed = shots.indices.filter { shots[$0].pictureHash != nil && shots[$0].burst == nil }
            .sorted { (shots[$0].takenAtMs, $0) < (shots[$1].takenAtMs, $1) }
        // Scenes as a union-find over the sorted photos: each one joins every earlier look-alike
        // within the gap (a bounded look back: a burst is dozens of frames, not thousands).
        var parent = Array(hashed.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for (position, index) in hashed.enumerated() {
            var back = position - 1
            while back >= 0, position - back <= 64,
                  shots[index].takenAtMs - shots[hashed[back]].takenAtMs <= nearDuplicateGapMs {
                let a = shots[index].pictureHash!, b = shots[hashed[back]].pictureHash!
                if (a ^ b).nonzeroBitCount <= nearDuplicateBits { parent[root(position)] = root(back) }
                back -= 1
            }
        }
        var scenes: [Int: [Int]] = [:]
        for position in hashed.indices { scenes[root(position), default: []].append(hashed[position]) }
        var marked = Set<Int>()
        for members in scenes.values where members.count > 1 {
            marked.formUnion(members.filter { $0 != kept(of: members, shots) })
        }
        return marked
    }
}
