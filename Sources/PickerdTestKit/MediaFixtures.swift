import Foundation

/// Real photo and video files for tests, made by the real tools people's files come from:
/// ImageMagick's `convert` (JPEG, PNG, TIFF), libheif's `heif-enc` (HEIC), FFmpeg (MOV, MP4) and
/// exiftool (EXIF and QuickTime tags). `Tools/setup` installs all four.
public enum MediaFixtures {
    /// A tool failed: its command line and what it printed.
    public struct ToolFailed: Error, CustomStringConvertible {
        /// The command and its output.
        public var description: String
    }

    /// EXIF to write into a still with exiftool.
    public struct Exif: Sendable {
        /// `DateTimeOriginal`, "YYYY:MM:DD HH:MM:SS".
        public var dateTimeOriginal: String?
        /// `OffsetTimeOriginal`, "+02:00".
        public var offsetTimeOriginal: String?
        /// `DateTimeDigitized` (`CreateDate` in exiftool's words).
        public var dateTimeDigitized: String?
        /// Degrees north (negative: south).
        public var latitude: Double?
        /// Degrees east (negative: west).
        public var longitude: Double?
        /// The camera's maker.
        public var make: String?
        /// The camera's model.
        public var model: String?
        /// The software that wrote the file.
        public var software: String?
        /// An exposure time in seconds (a camera records one; a screenshot does not).
        public var exposureTime: Double?
        /// EXIF orientation 1…8.
        public var orientation: Int?

        /// Creates EXIF to write; every field is optional.
        public init(dateTimeOriginal: String? = nil, offsetTimeOriginal: String? = nil, dateTimeDigitized: String? = nil,
                    latitude: Double? = nil, longitude: Double? = nil, make: String? = nil, model: String? = nil,
                    software: String? = nil, exposureTime: Double? = nil, orientation: Int? = nil) {
            self.dateTimeOriginal = dateTimeOriginal
            self.offsetTimeOriginal = offsetTimeOriginal
            self.dateTimeDigitized = dateTimeDigitized
            self.latitude = latitude
            self.longitude = longitude
            self.make = make
            self.model = model
            self.software = software
            self.exposureTime = exposureTime
            self.orientation = orientation
        }

        /// exiftool arguments that write these tags.
        var arguments: [String] {
            var a: [String] = []
            if let v = dateTimeOriginal { a.append("-DateTimeOriginal=\(v)") }
            if let v = offsetTimeOriginal { a.append("-OffsetTimeOriginal=\(v)") }
            if let v = dateTimeDigitized { a.append("-CreateDate=\(v)") }
            if let v = latitude { a += ["-GPSLatitude=\(abs(v))", "-GPSLatitudeRef=\(v < 0 ? "S" : "N")"] }
            if let v = longitude { a += ["-GPSLongitude=\(abs(v))", "-GPSLongitudeRef=\(v < 0 ? "W" : "E")"] }
            if let v = make { a.append("-Make=\(v)") }
            if let v = model { a.append("-Model=\(v)") }
            if let v = software { a.append("-Software=\(v)") }
            if let v = exposureTime { a.append("-ExposureTime=\(v)") }
            if let v = orientation { a += ["-n", "-Orientation=\(v)"] }
            return a
        }
    }

    /// Runs a tool found on `PATH`.
    /// - Parameters:
    ///   - tool: its name (`convert`, `exiftool`, `ffmpeg`, `heif-enc`).
    ///   - arguments: its arguments.
    /// - Throws: ``ToolFailed`` when it cannot be run or exits non-zero.
    public static func run(_ tool: String, _ arguments: [String]) throws {
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments)
        guard result.status == 0 else {
            throw ToolFailed(description: "\(tool) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)\(result.stdout)")
        }
    }

    /// Writes EXIF into an existing file with exiftool (in place).
    /// - Parameters:
    ///   - exif: the tags.
    ///   - path: a JPEG, PNG, TIFF or HEIC file.
    public static func writeExif(_ exif: Exif, to path: String) throws {
        let arguments = exif.arguments
        guard !arguments.isEmpty else { return }
        try run("exiftool", ["-q", "-overwrite_original"] + arguments + [path])
    }

    /// A PNG of `side` × `side` white pixels, written without ever holding them (zlib over rows of
    /// 0xFF, in Python): a few hundred KB that decode to `3 × side²` bytes.
    /// - Parameters:
    ///   - path: where to write it.
    ///   - side: its width and height in pixels.
    /// - Throws: when it cannot be written.
    public static func flatPNG(at path: String, side: Int) throws {
        let script = """
            import struct, sys, zlib
            side, path = int(sys.argv[1]), sys.argv[2]
            def chunk(kind, data):
                return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
            row = b'\\x00' + b'\\xff' * (3 * side)
            z = zlib.compressobj(9)
            body = b''.join(z.compress(row) for _ in range(side)) + z.flush()
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', side, side, 8, 2, 0, 0, 0)) + chunk(b'IDAT', body) + chunk(b'IEND', b'')
            open(path, 'wb').write(png)
            """
        let made = try runCommand(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, String(side), path])
        guard made.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: made.stderr]) }
    }

    /// A JPEG made by ImageMagick (a gradient, distinct per `seed`), with EXIF written by exiftool.
    /// - Parameters:
    ///   - path: where to write it.
    ///   - width: width in pixels.
    ///   - height: height in pixels.
    ///   - seed: varies the picture (two seeds give different files).
    ///   - exif: tags to write.
    public static func jpeg(at path: String, width: Int = 96, height: Int = 64, seed: Int = 0, exif: Exif = Exif()) throws {
        try run("convert", ["-size", "\(width)x\(height)", "gradient:\(colour(seed))-\(colour(seed + 3))", "-quality", "85", path])
        try writeExif(exif, to: path)
    }

    /// A PNG made by ImageMagick, with EXIF (an `eXIf` chunk) written by exiftool when `exif` has any.
    public static func png(at path: String, width: Int = 96, height: Int = 64, seed: Int = 0, exif: Exif = Exif()) throws {
        try run("convert", ["-size", "\(width)x\(height)", "gradient:\(colour(seed))-\(colour(seed + 5))", path])
        try writeExif(exif, to: path)
    }

    /// A HEIC made by libheif's `heif-enc` from an ImageMagick JPEG, with EXIF written by exiftool.
    public static func heic(at path: String, width: Int = 96, height: Int = 64, seed: Int = 0, exif: Exif = Exif()) throws {
        let source = path + ".source.jpg"
        defer { try? FileManager.default.removeItem(atPath: source) }
        try run("convert", ["-size", "\(width)x\(height)", "gradient:\(colour(seed))-\(colour(seed + 4))", source])
        try run("heif-enc", ["-q", "60", "-o", path, source])
        try writeExif(exif, to: path)
    }

    /// A WebP made by libwebp's `cwebp` (lossy VP8, or lossless VP8L) from an ImageMagick PNG, with
    /// EXIF written by exiftool (which turns the file into the extended format: `VP8X`, then the
    /// image chunk, then an `EXIF` chunk, as Android's camera apps lay it out).
    public static func webp(at path: String, width: Int = 96, height: Int = 64, seed: Int = 0, lossless: Bool = false,
                            exif: Exif = Exif()) throws {
        let source = path + ".source.png"
        defer { try? FileManager.default.removeItem(atPath: source) }
        try run("convert", ["-size", "\(width)x\(height)", "gradient:\(colour(seed))-\(colour(seed + 4))", source])
        try run("cwebp", ["-quiet"] + (lossless ? ["-lossless"] : ["-q", "80"]) + [source, "-o", path])
        try writeExif(exif, to: path)
    }

    /// An AVIF made by ImageMagick (libheif with libaom: 4:2:0, as phones and browsers write it;
    /// Debian 12's `heif-enc -A` aborts in libaom on its 4:2:2 default), with EXIF written by exiftool.
    /// Even sides: AV1's 4:2:0 wants them.
    public static func avif(at path: String, width: Int = 96, height: Int = 64, seed: Int = 0, exif: Exif = Exif()) throws {
        try run("convert", ["-size", "\(width)x\(height)", "gradient:\(colour(seed))-\(colour(seed + 4))", "-quality", "60", "avif:" + path])
        try writeExif(exif, to: path)
    }

    /// A JPEG XL made by libjxl's `cjxl` from an ImageMagick PNG: a bare codestream (`FF 0A`) as
    /// cjxl writes it, or, when `exif` has tags, the container exiftool wraps it in with an `Exif` box.
    public static func jxl(at path: String, width: Int = 96, height: Int = 64, seed: Int = 0, exif: Exif = Exif()) throws {
        let source = path + ".source.png"
        defer { try? FileManager.default.removeItem(atPath: source) }
        try run("convert", ["-size", "\(width)x\(height)", "gradient:\(colour(seed))-\(colour(seed + 4))", source])
        try run("cjxl", ["--quiet", "-q", "90", source, path])
        let arguments = exif.arguments
        guard !arguments.isEmpty else { return }
        // -m: exiftool's notice that it wraps the codestream in the container is a "minor" warning.
        try run("exiftool", ["-m", "-q", "-overwrite_original"] + arguments + [path])
    }

    /// A short clip made by FFmpeg (its test pattern) in the container `path`'s extension names
    /// (`.mov` or `.mp4`), with QuickTime metadata as an iPhone writes it: `creationDate`
    /// (`com.apple.quicktime.creationdate`, with its offset), `location.ISO6709`, `content.identifier`.
    /// - Parameters:
    ///   - path: where to write it (`.mov` or `.mp4`).
    ///   - seconds: its length.
    ///   - creationDate: ISO 8601 with offset ("2024-05-04T10:11:13+0200"), or `nil`.
    ///   - iso6709: a location ("+45.5000-122.6000/"), or `nil`.
    ///   - contentIdentifier: Apple's Live Photo pairing key, or `nil`.
    ///   - make: `com.apple.quicktime.make`, or `nil`.
    public static func clip(at path: String, seconds: Double = 1, creationDate: String? = nil, iso6709: String? = nil,
                            contentIdentifier: String? = nil, make: String? = nil) throws {
        var arguments = ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=64x48:rate=10",
                         "-c:v", "mpeg4", "-movflags", "use_metadata_tags"]
        if let v = creationDate { arguments += ["-metadata", "com.apple.quicktime.creationdate=\(v)"] }
        if let v = iso6709 { arguments += ["-metadata", "com.apple.quicktime.location.ISO6709=\(v)"] }
        if let v = contentIdentifier { arguments += ["-metadata", "com.apple.quicktime.content.identifier=\(v)"] }
        if let v = make { arguments += ["-metadata", "com.apple.quicktime.make=\(v)"] }
        try run("ffmpeg", arguments + [path])
    }

    /// A short clip made by FFmpeg with its default muxing for the container `path`'s extension
    /// names (no `use_metadata_tags`), so metadata lands where FFmpeg puts it by default: for MP4,
    /// `location` becomes a 3GPP `loci` atom in `moov/udta`, `creation_time` the `mvhd` time.
    /// - Parameters:
    ///   - path: where to write it (`.mov` or `.mp4`).
    ///   - seconds: its length.
    ///   - metadata: `-metadata` pairs, such as `["location": "+45.5000-122.6000/"]`.
    public static func plainClip(at path: String, seconds: Double = 1, metadata: [String: String] = [:]) throws {
        var arguments = ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=64x48:rate=10", "-c:v", "mpeg4"]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { arguments += ["-metadata", "\(key)=\(value)"] }
        try run("ffmpeg", arguments + [path])
    }

    /// Writes tags into an existing file with exiftool, in place, such as
    /// `["-UserData:GPSCoordinates=45.5, -122.6"]` (a movie's `©xyz`) or `["-XMP:GPSLatitude=45.5"]`.
    /// - Parameters:
    ///   - assignments: exiftool tag assignments.
    ///   - path: the file.
    public static func writeTags(_ assignments: [String], to path: String) throws {
        try run("exiftool", ["-q", "-overwrite_original"] + assignments + [path])
    }

    /// A short clip made by FFmpeg (its test pattern) with arbitrary container metadata, e.g. only
    /// `creation_time` (which FFmpeg writes into the movie header, in UTC) as cameras other than
    /// Apple's do.
    /// - Parameters:
    ///   - path: where to write it (`.mov` or `.mp4`).
    ///   - seconds: its length.
    ///   - metadata: `-metadata key=value` pairs, in order.
    public static func clip(at path: String, seconds: Double = 1, metadata: [(key: String, value: String)]) throws {
        var arguments = ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=64x48:rate=10",
                         "-c:v", "mpeg4"]
        for (key, value) in metadata { arguments += ["-metadata", "\(key)=\(value)"] }
        try run("ffmpeg", arguments + [path])
    }

    /// A copy of a clip (streams copied, not re-encoded) whose video stream carries a display matrix
    /// made from the `rotate` stream tag, as FFmpeg writes it.
    /// - Parameters:
    ///   - source: an existing clip.
    ///   - path: where to write the copy (same container).
    ///   - degrees: the `rotate` tag's value (90, 180, 270).
    public static func rotatedCopy(of source: String, at path: String, degrees: Int) throws {
        try run("ffmpeg", ["-loglevel", "error", "-y", "-i", source, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)", path])
    }

    /// Apple's MakerNote as an iPhone writes it: "Apple iOS\0", version 1, "MM", then a big-endian
    /// IFD whose value offsets count from the MakerNote's first byte, with the ASCII tags 0x000B
    /// (BurstUUID) and 0x0011 (MediaGroupUUID, the Live Photo ContentIdentifier).
    /// - Parameters:
    ///   - contentIdentifier: tag 0x0011's value, or `nil`.
    ///   - burstIdentifier: tag 0x000B's value, or `nil`.
    /// - Returns: the MakerNote's bytes.
    public static func appleMakerNote(contentIdentifier: String?, burstIdentifier: String?) -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var tags: [(Int, [UInt8])] = []
        if let burstIdentifier { tags.append((0x000B, Array(burstIdentifier.utf8) + [0])) }
        if let contentIdentifier { tags.append((0x0011, Array(contentIdentifier.utf8) + [0])) }
        let header: [UInt8] = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8)
        var values: [UInt8] = []
        var entries: [UInt8] = []
        let valuesStart = header.count + 2 + 12 * tags.count + 4
        for (tag, value) in tags {
            entries += be16(tag) + be16(2) + be32(value.count)
            if value.count <= 4 {
                entries += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                entries += be32(valuesStart + values.count)
                values += value
            }
        }
        return header + be16(tags.count) + entries + be32(0) + values
    }

    /// Writes Apple's MakerNote (``appleMakerNote(contentIdentifier:burstIdentifier:)``) into a
    /// JPEG or HEIC with exiftool (`-MakerNotes<=file`), which reads it back as Apple's.
    public static func writeAppleMakerNote(to path: String, contentIdentifier: String?, burstIdentifier: String?) throws {
        let note = path + ".makernote"
        defer { try? FileManager.default.removeItem(atPath: note) }
        try Data(appleMakerNote(contentIdentifier: contentIdentifier, burstIdentifier: burstIdentifier)).write(to: URL(fileURLWithPath: note))
        try run("exiftool", ["-q", "-overwrite_original", "-MakerNotes<=\(note)", path])
    }

    private static func colour(_ seed: Int) -> String {
        let palette = ["red", "blue", "green", "orange", "purple", "yellow", "teal", "maroon", "navy", "olive", "gray", "pink"]
        return palette[((seed % palette.count) + palette.count) % palette.count]
    }
}
