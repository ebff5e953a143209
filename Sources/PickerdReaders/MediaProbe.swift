import CMedia
public import Foundation
import Glibc
import PickerdMoments
import PickerdStore
public import PickerdImport

/// Reads one photo or video file's metadata: what it is (from its content, never its name), when
/// and where it was taken, by what, its size and Apple's pairing keys. It never decodes pixels and
/// reads only what the metadata needs: a JPEG's segments up to its first scan, a PNG's chunk
/// headers (and its `eXIf` chunk), a TIFF's first 64 KiB, a HEIC's boxes (libheif), a video's
/// header (libavformat, no packets).
///
/// What counts as corrupt: a file of zero bytes; a JPEG whose marker structure breaks or ends
/// before its first scan (SOS) or that has no frame header; a PNG whose chunks run past the end or
/// that has no `IEND`; a TIFF or HEIC its reader cannot parse; a video libavformat cannot parse.
/// A JPEG truncated inside its scan data (after all the metadata) is probed normally: its metadata
/// is intact, and ``Thumbnailer`` decodes what is there; but it is marked
/// ``ProbedMedia/imageDataEndsEarly`` (no end-of-image marker is reached), so the importer keeps it
/// out of suggestions as ``NotAMemory/undecodable``.
public enum MediaProbe {
    /// Reads `path`'s metadata.
    /// - Parameters:
    ///   - path: the file.
    ///   - timeZone: the zone an EXIF date without `OffsetTimeOriginal` is read in (the person's).
    /// - Returns: what the file says.
    /// - Throws: ``ProbeError``: `.unreadable` when it cannot be opened or read (or is not a regular
    ///   file: a directory, a FIFO), `.unsupported` when its content is not a format pickerd reads,
    ///   `.corrupt` when it claims one but is broken.
    public static func probe(path: String, timeZone: TimeZone = .current) throws(ProbeError) -> ProbedMedia {
        try probe(path: path, timeZone: timeZone, readPeople: false).media
    }

    /// Reads `path`'s metadata and, for a JPEG or a HEIC, the people its XMP names (face regions,
    /// People tags: ``XMPPeople``), found with a bounded byte scan.
    /// - Parameters:
    ///   - path: the file.
    ///   - timeZone: the zone an EXIF date without `OffsetTimeOriginal` is read in (the person's).
    ///   - readPeople: whether to look for the names at all.
    /// - Returns: what the file says, and whom it names (empty when no one, or not looked for).
    /// - Throws: ``ProbeError``, as ``probe(path:timeZone:)``.
    public static func probe(path: String, timeZone: TimeZone = .current, readPeople: Bool) throws(ProbeError) -> (media: ProbedMedia, people: [String]) {
        let file = try MediaFile(path: path)
        guard file.size > 0 else { throw ProbeError(.corrupt, "the file is empty") }
        let head = try file.read(at: 0, count: 32)
        guard let format = MediaFormat(head: head) else {
            if let image = MediaFormat.unreadImage(head: head) {
                throw ProbeError(.unsupported, "\(image): a photo format pickerd does not read yet")
            }
            throw ProbeError(.unsupported, "not a photo or video format pickerd reads")
        }
        switch format {
        case .jpeg:
            let (media, xmp) = try probeJPEG(file, timeZone: timeZone, wantXMP: readPeople)
            return (media, xmp.flatMap(XMPPeople.packet).map(XMPPeople.names) ?? [])
        case .png: return (try probePNG(file, timeZone: timeZone), [])
        case .tiff: return (try probeTIFF(file, timeZone: timeZone), [])
        case .heic:
            let media = try probeHEIC(file, timeZone: timeZone)
            guard readPeople else { return (media, []) }
            // The XMP item of a HEIC: exiftool and cameras write it ahead of the image data.
            let head = try file.read(at: 0, count: XMPPeople.headScanBytes)
            return (media, XMPPeople.packet(in: head).map(XMPPeople.names) ?? [])
        case .quicktime, .mp4: return (try probeVideo(file, format: format, timeZone: timeZone), [])
        }
    }

    // MARK: Stills

    /// A JPEG's metadata and, when `wantXMP`, its XMP segment's packet (APP1, "http://ns.adobe.com/xap/1.0/").
    private static func probeJPEG(_ file: MediaFile, timeZone: TimeZone, wantXMP: Bool) throws(ProbeError) -> (ProbedMedia, [UInt8]?) {
        var media = ProbedMedia(kind: .photo, contentType: MediaFormat.jpeg.contentType)
        var offset: Int64 = 2
        var exifBlock: [UInt8]?
        var xmp: [UInt8]?
        var frameSize: (width: UInt32, height: UInt32)?
        var ciffMakeModel: (make: String, model: String)?
        var segments = 0
        walk: while true {
            segments += 1
            guard segments < 2_000 else { throw ProbeError(.corrupt, "JPEG: too many segments before the image data") }
            let marker = try file.read(at: offset, count: 2)
            guard marker.count == 2 else { throw ProbeError(.corrupt, "JPEG: truncated before the image data") }
            guard marker[0] == 0xFF else {
                throw ProbeError(.corrupt, "JPEG: no segment marker at byte \(offset) (garbage after the header)")
            }
            switch marker[1] {
            case 0xFF:  // fill byte
                offset += 1
                continue walk
            case 0x01, 0xD0...0xD8:  // markers without a length
                offset += 2
                continue walk
            case 0xD9:
                throw ProbeError(.corrupt, "JPEG: ends before any image data")
            default:
                break
            }
            let lengthBytes = try file.read(at: offset + 2, count: 2)
            guard lengthBytes.count == 2 else { throw ProbeError(.corrupt, "JPEG: truncated in a segment header") }
            let length = Int64(lengthBytes[0]) << 8 | Int64(lengthBytes[1])
            guard length >= 2 else { throw ProbeError(.corrupt, "JPEG: a segment of length \(length)") }
            guard offset + 2 + length <= file.size else {
                throw ProbeError(.corrupt, "JPEG: truncated (a segment runs past the end of the file)")
            }
            let marker1 = marker[1]
            if marker1 == 0xDA {  // start of scan: the metadata is behind us
                guard frameSize != nil else { throw ProbeError(.corrupt, "JPEG: image data without a frame header") }
                media.imageDataEndsEarly = try !jpegReachesEnd(file, scanAt: offset)
                break walk
            }
            if marker1 == 0xE1, exifBlock == nil || (wantXMP && xmp == nil), length > 8 {
                let payload = try file.read(at: offset + 4, count: Int(length - 2))
                if exifBlock == nil, payload.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) {
                    exifBlock = Array(payload.dropFirst(6))
                } else if wantXMP, xmp == nil, payload.starts(with: Array("http://ns.adobe.com/xap/1.0/\0".utf8)) {
                    xmp = Array(payload.dropFirst(29))
                }
            }
            // Canon's first digital cameras wrote their make and model only in a CIFF heap in APP0
            // ("HEAPJPGM"), no EXIF: without them a 1024×768 photo looks like a screen's size.
            if marker1 == 0xE0, length > 16, ciffMakeModel == nil {
                let payload = try file.read(at: offset + 4, count: Int(length - 2))
                ciffMakeModel = CIFF.makeAndModel(payload)
            }
            // SOF0…SOF15, not DHT (C4), JPG (C8), DAC (CC).
            if (0xC0...0xCF).contains(marker1), ![0xC4, 0xC8, 0xCC].contains(marker1), frameSize == nil {
                let sof = try file.read(at: offset + 4, count: 5)
                guard sof.count == 5 else { throw ProbeError(.corrupt, "JPEG: truncated frame header") }
                frameSize = (UInt32(sof[3]) << 8 | UInt32(sof[4]), UInt32(sof[1]) << 8 | UInt32(sof[2]))
            }
            offset += 2 + length
        }
        if let exifBlock, let exif = readExif(exifBlock) { apply(exif, to: &media, timeZone: timeZone) }
        if let ciffMakeModel, media.make == nil, media.model == nil {
            media.make = ciffMakeModel.make.isEmpty ? nil : ciffMakeModel.make
            media.model = ciffMakeModel.model.isEmpty ? nil : ciffMakeModel.model
        }
        if let frameSize, frameSize.width > 0, frameSize.height > 0 {
            media.pixelWidth = frameSize.width
            media.pixelHeight = frameSize.height
        }
        return (media, xmp)
    }

    /// The most bytes ``jpegReachesEnd(_:scanAt:)`` scans past the first scan header before it
    /// gives up and takes the image as whole: far above any photo's image data.
    static let maximumJPEGScanBytes: Int64 = 256 << 20

    /// Whether a JPEG's image data reaches its end-of-image marker (EOI, `FF D9`): a file cut
    /// inside its entropy-coded data (a copy or download that stopped) does not, though its
    /// metadata is whole. Cheap for almost every file: one read of the last two bytes, which are the
    /// EOI in a JPEG as written. Only a file that ends otherwise is scanned, from its first scan
    /// (SOS) on in 1 MiB reads, bounded by ``maximumJPEGScanBytes``, skipping stuffed `FF 00`,
    /// restart markers and fill bytes, and the segments a progressive JPEG has between its scans
    /// (DHT, SOS, DRI…) by their lengths: so data after the EOI (a motion photo's video, a camera's
    /// padding) leaves the image whole, and a file that ends in scan data or in zeros is cut.
    /// - Parameters:
    ///   - file: the JPEG.
    ///   - offset: where its first SOS marker is.
    /// - Returns: `false` when the file ends before an EOI.
    /// - Throws: ``ProbeError`` `.unreadable` when it cannot be read.
    static func jpegReachesEnd(_ file: MediaFile, scanAt offset: Int64) throws(ProbeError) -> Bool {
        if try file.read(at: file.size - 2, count: 2) == [0xFF, 0xD9] { return true }
        var position = offset  // the next byte to look at
        var skip: Int64 = 0  // bytes of a segment's payload still to pass
        var sawFF = false
        var lengthBytes: [UInt8]?  // a segment's length being read (0, 1 or 2 bytes of it)
        let end = min(file.size, offset + maximumJPEGScanBytes)
        while position < end {
            let chunk = try file.read(at: position, count: Int(min(1 << 20, end - position)))
            guard !chunk.isEmpty else { break }
            var index = 0
            while index < chunk.count {
                if skip > 0 {
                    let passed = Int(min(skip, Int64(chunk.count - index)))
                    skip -= Int64(passed)
                    index += passed
                    continue
                }
                if var length = lengthBytes {
                    length.append(chunk[index])
                    index += 1
                    if length.count == 2 {
                        lengthBytes = nil
                        let value = Int64(length[0]) << 8 | Int64(length[1])
                        guard value >= 2 else { return false }
                        skip = value - 2
                    } else {
                        lengthBytes = length
                    }
                    continue
                }
                if sawFF {
                    let byte = chunk[index]
                    index += 1
                    switch byte {
                    case 0xFF: continue  // fill
                    case 0xD9: return true
                    case 0x00, 0x01, 0xD0...0xD8: sawFF = false  // stuffed zero, TEM, restart markers
                    default:  // a segment with a length: DHT, SOS, DQT, DRI, COM, APPn between scans
                        sawFF = false
                        lengthBytes = []
                    }
                    continue
                }
                guard let found = chunk[index...].firstIndex(of: 0xFF) else { break }
                sawFF = true
                index = found + 1
            }
            position += Int64(chunk.count)
        }
        // Past the bound without an answer: taken as whole rather than kept out on a guess.
        return end < file.size
    }

    private static func probePNG(_ file: MediaFile, timeZone: TimeZone) throws(ProbeError) -> ProbedMedia {
        var media = ProbedMedia(kind: .photo, contentType: MediaFormat.png.contentType)
        var offset: Int64 = 8
        var chunks = 0
        var exifBlock: [UInt8]?
        while true {
            chunks += 1
            guard chunks < 1_000_000 else { throw ProbeError(.corrupt, "PNG: too many chunks") }
            let header = try file.read(at: offset, count: 8)
            guard header.count == 8 else { throw ProbeError(.corrupt, "PNG: truncated (no IEND chunk)") }
            let length = Int64(header[0]) << 24 | Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            // A chunk type is four ASCII letters; a broken file's are shown escaped, never as raw bytes.
            let type = header[4..<8].map { (0x21...0x7E).contains($0) ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
            guard length <= 0x7FFF_FFFF, offset + 12 + length <= file.size else {
                throw ProbeError(.corrupt, "PNG: truncated (chunk \(type) runs past the end of the file)")
            }
            if chunks == 1 {
                guard type == "IHDR", length == 13 else { throw ProbeError(.corrupt, "PNG: the first chunk is not IHDR") }
                let ihdr = try file.read(at: offset + 8, count: 8)
                guard ihdr.count == 8 else { throw ProbeError(.corrupt, "PNG: truncated IHDR") }
                media.pixelWidth = UInt32(ihdr[0]) << 24 | UInt32(ihdr[1]) << 16 | UInt32(ihdr[2]) << 8 | UInt32(ihdr[3])
                media.pixelHeight = UInt32(ihdr[4]) << 24 | UInt32(ihdr[5]) << 16 | UInt32(ihdr[6]) << 8 | UInt32(ihdr[7])
            } else if type == "eXIf", exifBlock == nil, length >= 8, length <= 16 * 1024 * 1024 {
                exifBlock = try file.read(at: offset + 8, count: Int(length))
            } else if type == "IEND" {
                break
            }
            offset += 12 + length
        }
        if let exifBlock, let exif = readExif(exifBlock) {
            apply(exif, to: &media, timeZone: timeZone)
        }
        return media
    }

    private static func probeTIFF(_ file: MediaFile, timeZone: TimeZone) throws(ProbeError) -> ProbedMedia {
        var media = ProbedMedia(kind: .photo, contentType: MediaFormat.tiff.contentType)
        // Its directories wherever they lie (a DNG's EXIF directory may lie past its preview),
        // gathered; else the first 64 KB as they are.
        var block = try gatheredTIFFMetadata(file) ?? []
        if block.isEmpty { block = try file.read(at: 0, count: 65_000) }
        guard let exif = readExif(block) else { throw ProbeError(.corrupt, "TIFF: no readable first directory (IFD0)") }
        apply(exif, to: &media, timeZone: timeZone)
        if exif.image_width > 0, exif.image_length > 0 {
            media.pixelWidth = exif.image_width
            media.pixelHeight = exif.image_length
        }
        return media
    }

    /// The most bytes of metadata gathered from a TIFF (libexif reads at most 64 KB, an APP1's).
    static let maximumTIFFMetadata = 0xFF00

    /// A TIFF's metadata gathered into one small TIFF libexif reads: IFD0 and the EXIF, GPS and
    /// interoperability directories it points to, wherever in the file they lie (a DNG's EXIF
    /// directory may sit past a large preview, a TIFF's first directory after its pixels), each
    /// value stored outside its entry copied along and its offset rewritten; image data stays
    /// behind. Bounded: directories of at most 1,024 entries, three deep, ``maximumTIFFMetadata``
    /// bytes in all (a value that does not fit, such as a large MakerNote, is left out). Nil when
    /// the header or IFD0 cannot be read.
    static func gatheredTIFFMetadata(_ file: MediaFile) throws(ProbeError) -> [UInt8]? {
        let header = try file.read(at: 0, count: 8)
        guard header.count == 8 else { return nil }
        let little = header[0] == 0x49
        func u16(_ b: [UInt8], _ i: Int) -> Int { little ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i]) << 8 | Int(b[i + 1]) }
        func u32(_ b: [UInt8], _ i: Int) -> Int {
            little ? Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
                : Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
        }
        var out = Array(header[0..<4])
        func put32(_ value: Int, at i: Int) {
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            out.replaceSubrange(i..<(i + 4), with: little ? bytes : bytes.reversed())
        }
        out += [0, 0, 0, 0]
        let sizes = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4]  // bytes per value, by TIFF field type
        var seen = Set<Int>()
        func copy(_ offset: Int, depth: Int) throws(ProbeError) -> Int? {
            guard depth < 3, offset >= 8, offset < Int(file.size), seen.insert(offset).inserted else { return nil }
            let countBytes = try file.read(at: Int64(offset), count: 2)
            guard countBytes.count == 2 else { return nil }
            let count = min(u16(countBytes, 0), 1_024)
            let entries = try file.read(at: Int64(offset) + 2, count: count * 12)
            guard entries.count == count * 12, out.count + 6 + count * 12 <= maximumTIFFMetadata else { return nil }
            let at = out.count
            out += countBytes + entries + [0, 0, 0, 0]  // the next-IFD pointer stays 0: thumbnails are not read
            for index in 0..<count {
                let entry = at + 2 + index * 12
                let tag = u16(entries, index * 12), type = u16(entries, index * 12 + 2)
                let n = u32(entries, index * 12 + 4), value = u32(entries, index * 12 + 8)
                if [0x8769, 0x8825, 0xA005].contains(tag) {
                    put32(try copy(value, depth: depth + 1) ?? 0, at: entry + 8)
                    continue
                }
                guard type < sizes.count, n <= maximumTIFFMetadata else { continue }
                let size = sizes[type] * n
                guard size > 4 else { continue }
                if out.count + size <= maximumTIFFMetadata, value + size <= Int(file.size) {
                    let data = try file.read(at: Int64(value), count: size)
                    put32(out.count, at: entry + 8)
                    out += data
                    if out.count % 2 == 1 { out.append(0) }
                } else {
                    put32(0, at: entry + 4)  // no room: the entry keeps no value
                }
            }
            return at
        }
        guard let first = try copy(u32(header, 4), depth: 0) else { return nil }
        put32(first, at: 4)
        return out
    }

    private static func probeHEIC(_ file: MediaFile, timeZone: TimeZone) throws(ProbeError) -> ProbedMedia {
        var media = ProbedMedia(kind: .photo, contentType: MediaFormat.heic.contentType)
        var info = pm_heif_info()
        var error = [CChar](repeating: 0, count: 256)
        let status = pm_heif_probe_fd(file.fd, &info, &error, error.count)
        guard status == PM_OK else { throw ProbeError(status, message: "HEIC: " + CText.error(error)) }
        if info.has_exif != 0 { apply(info.exif, to: &media, timeZone: timeZone) }
        // libheif applies the file's own rotation (irot/imir), which takes precedence over EXIF's
        // Orientation in HEIF: sizes are as displayed and nothing is left to rotate.
        media.orientation = 1
        media.pixelWidth = info.width
        media.pixelHeight = info.height
        return media
    }

    // MARK: Videos

    private static func probeVideo(_ file: MediaFile, format: MediaFormat, timeZone: TimeZone) throws(ProbeError) -> ProbedMedia {
        var media = ProbedMedia(kind: .video, contentType: format.contentType)
        var info = pm_video_info()
        var error = [CChar](repeating: 0, count: 256)
        let status = pm_video_probe_fd(file.fd, &info, &error, error.count)
        guard status == PM_OK else { throw ProbeError(status, message: "video: " + CText.error(error)) }
        guard info.has_video != 0 else { throw ProbeError(.unsupported, "video: the file has no video stream") }
        if let date = CText.field(info.creation_date), let parsed = MediaDates.iso8601(date, timeZone: timeZone) {
            media.takenAtMs = parsed.ms
            media.utcOffsetSeconds = parsed.offset
        } else if let date = CText.field(info.creation_time), let parsed = MediaDates.iso8601(date, timeZone: TimeZone(identifier: "UTC") ?? timeZone) {
            media.takenAtMs = parsed.ms  // UTC: says nothing of the local offset
        }
        if let location = CText.field(info.location) { media.coordinate = ISO6709.parse(location) }
        media.contentIdentifier = CText.field(info.content_identifier)
        media.make = CText.field(info.make)
        media.model = CText.field(info.model)
        media.software = CText.field(info.software)
        media.durationMs = info.duration_ms >= 0 ? info.duration_ms : nil
        media.pixelWidth = info.width
        media.pixelHeight = info.height
        switch info.rotation {
        case 90: media.orientation = 6
        case 180: media.orientation = 3
        case 270: media.orientation = 8
        default: media.orientation = 1
        }
        return media
    }

    // MARK: EXIF

    private static func readExif(_ block: [UInt8]) -> pm_exif_info? {
        var info = pm_exif_info()
        let status = block.withUnsafeBufferPointer { pm_exif_read($0.baseAddress, $0.count, &info) }
        return status == PM_OK ? info : nil
    }

    private static func apply(_ exif: pm_exif_info, to media: inout ProbedMedia, timeZone: TimeZone) {
        let originalOffset = CText.field(exif.offset_time_original).flatMap(MediaDates.offsetSeconds)
        if let date = CText.field(exif.date_time_original),
           let ms = MediaDates.exif(date, subSeconds: CText.field(exif.sub_sec_time_original), offset: originalOffset, timeZone: timeZone) {
            media.takenAtMs = ms
            media.utcOffsetSeconds = originalOffset
        }
        var digitized: Int64?
        if let date = CText.field(exif.date_time_digitized) {
            let offset = CText.field(exif.offset_time_digitized).flatMap(MediaDates.offsetSeconds) ?? originalOffset
            digitized = MediaDates.exif(date, subSeconds: nil, offset: offset, timeZone: timeZone)
        }
        if digitized == nil, let date = CText.field(exif.date_time) {
            let offset = CText.field(exif.offset_time).flatMap(MediaDates.offsetSeconds) ?? originalOffset
            digitized = MediaDates.exif(date, subSeconds: nil, offset: offset, timeZone: timeZone)
        }
        // The same second as the taking date is not a different date (sub-seconds may differ).
        if let digitized, media.takenAtMs.map({ $0 / 1000 != digitized / 1000 }) ?? true {
            media.digitizedAtMs = digitized
        }
        if exif.has_gps != 0 { media.coordinate = ISO6709.validated(latitude: exif.latitude, longitude: exif.longitude) }
        media.make = CText.field(exif.make)
        media.model = CText.field(exif.model)
        media.software = CText.field(exif.software)
        media.hasExposure = exif.has_exposure != 0
        media.orientation = exif.orientation >= 1 && exif.orientation <= 8 ? Int(exif.orientation) : 1
        if exif.pixel_x_dimension > 0, exif.pixel_y_dimension > 0 {
            media.pixelWidth = exif.pixel_x_dimension
            media.pixelHeight = exif.pixel_y_dimension
        }
        media.contentIdentifier = CText.field(exif.content_identifier)
        media.burstIdentifier = CText.field(exif.burst_identifier)
    }
}

extension ProbeError {
    /// An error from a CMedia status.
    init(_ status: pm_status, message: String) {
        switch status {
        case PM_UNREADABLE: self.init(.unreadable, message)
        case PM_UNSUPPORTED: self.init(.unsupported, message)
        default: self.init(.corrupt, message)
        }
    }
}

/// Text from CMedia's C structs and error buffers.
enum CText {
/// A C string in a fixed-size field (a tuple of `CChar`), `nil` when empty.
static func field<Field>(_ field: Field) -> String? {
    withUnsafeBytes(of: field) { raw in
        let bytes = raw.prefix(while: { $0 != 0 })
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}

/// The NUL-terminated text in a C error buffer.
static func error(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
    return bytes.isEmpty ? "unknown error" : String(decoding: bytes, as: UTF8.self)
}
}

/// The formats pickerd reads, told apart by content.
enum MediaFormat: Equatable {
    case jpeg, png, tiff, heic, quicktime, mp4

    /// Its MIME type.
    var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .tiff: "image/tiff"
        case .heic: "image/heic"
        case .quicktime: "video/quicktime"
        case .mp4: "video/mp4"
        }
    }

    /// The name of a photo format `head` starts that pickerd knows but does not read (WebP, AVIF,
    /// BigTIFF, JPEG XL), so that such a photo is named as what it is, not as no photo at all.
    static func unreadImage(head: [UInt8]) -> String? {
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) { return "a WebP image" }
        if head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return "a BigTIFF" }
        if head.starts(with: [0xFF, 0x0A]) || head.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return "a JPEG XL image" }
        if head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) {
            let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            var brands = [String(decoding: head[8..<12], as: UTF8.self)]
            var at = 16
            while at + 4 <= min(head.count, max(boxSize, 12)) {
                brands.append(String(decoding: head[at..<(at + 4)], as: UTF8.self))
                at += 4
            }
            if brands.contains("avif") || brands.contains("avis") { return "an AVIF image" }
        }
        return nil
    }

    /// The format `head` (a file's first bytes, up to 32) starts, `nil` for anything else.
    init?(head: [UInt8]) {
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { self = .jpeg; return }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { self = .png; return }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { self = .tiff; return }
        guard head.count >= 12 else { return nil }
        let box = String(decoding: head[4..<8], as: UTF8.self)
        if box == "ftyp" {
            let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            var brands = [String(decoding: head[8..<12], as: UTF8.self)]
            var at = 16  // after the minor version
            while at + 4 <= min(head.count, max(boxSize, 12)) {
                brands.append(String(decoding: head[at..<(at + 4)], as: UTF8.self))
                at += 4
            }
            let heic: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
            // The MP4 family: ISO base media, MPEG-4, 3GPP and 3GPP2 (phones' .3gp and .3g2), Flash's F4V.
            let mp4: Set<String> = ["isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "mp4v", "avc1", "M4V ", "M4VH", "M4VP",
                                    "MSNV", "dash", "f4v ", "3gp4", "3gp5", "3gp6", "3gp7", "3gp8", "3gp9", "3gg6", "3gg9", "3ge6", "3ge7",
                                    "3gs7", "3g2a", "3g2b", "3g2c", "kddi", "mmp4"]
            let major = brands[0]
            if heic.contains(major) {
                // A bare HEIF brand whose compatible brands say AV1 (AVIF) is not HEIC.
                if (major == "mif1" || major == "msf1"), brands.contains("avif") || brands.contains("avis"),
                   !brands.dropFirst().contains(where: { ["heic", "heix", "hevc", "hevx"].contains($0) }) {
                    return nil
                }
                self = .heic
            } else if major == "qt  " {
                self = .quicktime
            } else if mp4.contains(major) || (!brands.dropFirst().contains { heic.contains($0) || $0 == "avif" }
                                              && brands.dropFirst().contains { mp4.contains($0) }) {
                // An unknown major brand whose compatible brands say MP4 is an MP4 (FFmpeg reads it).
                self = .mp4
            } else {
                return nil
            }
            return
        }
        // Old QuickTime files start with a movie's own atoms, no `ftyp`.
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(box) { self = .quicktime; return }
        return nil
    }
}

/// An open regular file, read with `pread` (opened through ``ReaderFiles``; libheif and FFmpeg
/// get its descriptor, never its path).
final class MediaFile {
    /// The descriptor.
    let fd: Int32
    /// Its size in bytes.
    let size: Int64

    /// Opens `path` through ``ReaderFiles`` (without blocking: a FIFO would otherwise wait for a
    /// writer) and checks that it is a regular file.
    init(path: String) throws(ProbeError) {
        guard let fd = ReaderFiles.open(path) else {
            switch errno {
            case EISDIR: throw ProbeError(.unreadable, "it is a directory")
            case EINVAL: throw ProbeError(.unreadable, "it is not a regular file")
            default: throw ProbeError(.unreadable, "cannot open it: \(ReaderFiles.reason())")
            }
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw ProbeError(.unreadable, "cannot stat it: \(message)")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ProbeError(.unreadable, st.st_mode & S_IFMT == S_IFDIR ? "it is a directory" : "it is not a regular file")
        }
        self.fd = fd
        self.size = Int64(st.st_size)
    }

    deinit { close(fd) }

    /// Up to `count` bytes at `offset`: fewer at the end of the file.
    func read(at offset: Int64, count: Int) throws(ProbeError) -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        let wanted = Int(min(Int64(count), size - offset))
        var buffer = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, wanted - done, off_t(offset) + off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ProbeError(.unreadable, "cannot read it: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            done += n
        }
        if done < wanted { buffer.removeLast(wanted - done) }
        return buffer
    }
}

/// Dates as files write them.
enum MediaDates {
    /// An EXIF date ("YYYY:MM:DD HH:MM:SS") in ms since 1970: read at `offset` seconds from UTC when
    /// given, else in `timeZone`. `nil` for an empty or impossible date ("0000:00:00 00:00:00").
    static func exif(_ text: String, subSeconds: String?, offset: Int32?, timeZone: TimeZone) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 19, let fields = dateFields(b) else { return nil }
        var ms = localSeconds(fields) * 1000 + Int64(fraction(subSeconds.map { Array($0.utf8) } ?? []))
        if let offset {
            ms -= Int64(offset) * 1000
        } else {
            ms = utcMs(localMs: ms, in: timeZone)
        }
        return ms
    }

    /// An ISO 8601 date ("2024-05-04T10:11:13+0200", "2024-05-04T08:11:13.000000Z") in ms since
    /// 1970, with the offset it states; a date without an offset is read in `timeZone` (offset `nil`).
    static func iso8601(_ text: String, timeZone: TimeZone) -> (ms: Int64, offset: Int32?)? {
        let b = Array(text.utf8)
        guard b.count >= 19, let fields = dateFields(b) else { return nil }
        var at = 19
        var fractionDigits: [UInt8] = []
        if at < b.count, b[at] == UInt8(ascii: ".") || b[at] == UInt8(ascii: ",") {
            at += 1
            while at < b.count, (48...57).contains(b[at]) { fractionDigits.append(b[at]); at += 1 }
        }
        let local = localSeconds(fields) * 1000 + Int64(fraction(fractionDigits))
        let rest = String(decoding: b[at...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        if rest.isEmpty { return (utcMs(localMs: local, in: timeZone), nil) }
        guard let offset = offsetSeconds(rest) else { return nil }
        return (local - Int64(offset) * 1000, offset)
    }

    /// "+02:00", "+0200", "-07", "Z" in seconds east of UTC.
    static func offsetSeconds(_ text: String) -> Int32? {
        let b = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        if b == [UInt8(ascii: "Z")] || b == [UInt8(ascii: "z")] { return 0 }
        guard let sign = b.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        let digits = b.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let d = digits.map { Int32($0 - 48) }
        let hours = d[0] * 10 + d[1], minutes = d.count == 4 ? d[2] * 10 + d[3] : 0
        guard hours <= 18, minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -seconds : seconds
    }

    /// Year, month, day, hour, minute, second from "YYYY?MM?DD?HH?MM?SS" (any separators).
    private static func dateFields(_ b: [UInt8]) -> [Int]? {
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10),
              let h = number(11..<13), let mi = number(14..<16), let s = number(17..<19) else { return nil }
        guard y >= 1800, (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s <= 60 else { return nil }
        return [y, mo, d, h, mi, s]
    }

    /// Seconds since 1970 of a date and time read as if in UTC.
    private static func localSeconds(_ f: [Int]) -> Int64 {
        Int64(Civil.days(year: f[0], month: f[1], day: f[2])) * 86_400 + Int64(f[3] * 3600 + f[4] * 60 + f[5])
    }

    /// Milliseconds from a second's fraction digits ("5" → 500, "123456" → 123).
    private static func fraction(_ digits: [UInt8]) -> Int {
        var ms = 0
        for i in 0..<3 {
            let digit = i < digits.count && (48...57).contains(digits[i]) ? Int(digits[i] - 48) : 0
            ms = ms * 10 + digit
        }
        return ms
    }

    /// A local wall-clock time in `zone` as ms since 1970.
    private static func utcMs(localMs: Int64, in zone: TimeZone) -> Int64 {
        let first = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localMs) / 1000))
        let guess = localMs - Int64(first) * 1000
        let second = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(guess) / 1000))
        return localMs - Int64(second) * 1000
    }
}

/// ISO 6709 locations ("+45.5000-122.6000+012.3/", also degrees-minutes and
/// degrees-minutes-seconds forms: "+4530.00-12236.00/", "+453000-1223600/").
enum ISO6709 {
    /// The coordinate `text` states, `nil` when it is malformed, out of range or exactly 0,0.
    static func parse(_ text: String) -> Coordinate? {
        let b = Array(text.utf8)
        var at = 0
        func component(integerDigitsForDegrees: Int) -> Double? {
            guard at < b.count, b[at] == UInt8(ascii: "+") || b[at] == UInt8(ascii: "-") else { return nil }
            let negative = b[at] == UInt8(ascii: "-")
            at += 1
            var integer: [UInt8] = [], fraction: [UInt8] = []
            while at < b.count, (48...57).contains(b[at]) { integer.append(b[at]); at += 1 }
            if at < b.count, b[at] == UInt8(ascii: ".") {
                at += 1
                while at < b.count, (48...57).contains(b[at]) { fraction.append(b[at]); at += 1 }
            }
            let n = integerDigitsForDegrees
            guard [n, n + 2, n + 4].contains(integer.count) else { return nil }
            func value(_ digits: ArraySlice<UInt8>) -> Double { digits.reduce(0) { $0 * 10 + Double($1 - 48) } }
            let fractionValue = fraction.isEmpty ? 0 : value(fraction[...]) / pow(10, Double(fraction.count))
            var degrees: Double
            switch integer.count - n {
            case 0: degrees = value(integer[...]) + fractionValue
            case 2: degrees = value(integer[0..<n]) + (value(integer[n...]) + fractionValue) / 60
            default:
                degrees = value(integer[0..<n]) + value(integer[n..<(n + 2)]) / 60 + (value(integer[(n + 2)...]) + fractionValue) / 3600
            }
            return negative ? -degrees : degrees
        }
        guard let latitude = component(integerDigitsForDegrees: 2), let longitude = component(integerDigitsForDegrees: 3) else {
            return nil
        }
        return validated(latitude: latitude, longitude: longitude)
    }

    /// The coordinate when it is on Earth and not exactly 0,0 (cameras write 0,0 without a fix).
    static func validated(latitude: Double, longitude: Double) -> Coordinate? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
              !(latitude == 0 && longitude == 0) else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}

/// Canon's Camera Image File Format heap, as early PowerShots wrote it in a JPEG's APP0: the byte
/// order (`II`/`MM`), the header's length, `HEAPJPGM`, then a heap whose last 4 bytes point to its
/// record table (a count, then 10-byte records: tag, size, offset), records of type 0x2800/0x3000
/// being heaps of their own. Only the make and model (tag 0x080A: "Canon\0Canon PowerShot S20\0")
/// are read, four heaps deep at most, every offset checked.
enum CIFF {
    /// The make and model a CIFF APP0 payload holds, nil when it is not one or has none.
    static func makeAndModel(_ payload: [UInt8]) -> (make: String, model: String)? {
        guard payload.count >= 26, payload.starts(with: [0x49, 0x49]) || payload.starts(with: [0x4D, 0x4D]),
              payload[6..<14].elementsEqual("HEAPJPGM".utf8) || payload[6..<14].elementsEqual("HEAPCCDR".utf8) else { return nil }
        let little = payload[0] == 0x49
        func u16(_ i: Int) -> Int { little ? Int(payload[i]) | Int(payload[i + 1]) << 8 : Int(payload[i]) << 8 | Int(payload[i + 1]) }
        func u32(_ i: Int) -> Int {
            little ? Int(payload[i]) | Int(payload[i + 1]) << 8 | Int(payload[i + 2]) << 16 | Int(payload[i + 3]) << 24
                : Int(payload[i]) << 24 | Int(payload[i + 1]) << 16 | Int(payload[i + 2]) << 8 | Int(payload[i + 3])
        }
        func search(_ start: Int, _ end: Int, depth: Int) -> (String, String)? {
            guard depth < 4, start >= 0, end <= payload.count, end - start >= 6 else { return nil }
            let table = start + u32(end - 4)
            guard table >= start, table + 2 <= end - 4 else { return nil }
            let count = u16(table)
            for index in 0..<min(count, 1_024) {
                let at = table + 2 + index * 10
                guard at + 10 <= end - 4 else { return nil }
                let tag = u16(at), size = u32(at + 2), offset = start + u32(at + 6)
                guard tag & 0xC000 == 0, offset >= start, size >= 0, offset + size <= end else { continue }
                if tag & 0x3FFF == 0x080A {
                    let strings = payload[offset..<(offset + size)].split(separator: 0, omittingEmptySubsequences: false)
                    let text = strings.prefix(2).map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces) }
                    return (text.first ?? "", text.count > 1 ? text[1] : "")
                }
                if [0x2800, 0x3000].contains(tag & 0x3800), let found = search(offset, offset + size, depth: depth + 1) { return found }
            }
            return nil
        }
        let headerLength = u32(2)
        return search(headerLength, payload.count, depth: 0)
    }
}
