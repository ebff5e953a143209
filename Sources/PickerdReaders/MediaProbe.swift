import CMedia
public import Foundation
import Glibc
import PickerdMoments
import PickerdStore
public import PickerdImport

/// Reads one photo or video file's metadata: what it is (from its content, never its name), when
/// and where it was taken, by what, its size and Apple's pairing keys. It decodes pixels only for a
/// still's picture hash, when the indexer asks (``probe(path:timeZone:readPeople:hashPicture:)``),
/// and otherwise reads only what the metadata needs: a JPEG's segments up to its first scan, a PNG's chunk
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
    /// People tags: ``XMPPeople``), found with a bounded byte scan, and the place its XMP or
    /// IPTC-IIM names (``XMPLocation``, on ``ProbedMedia/placeName``).
    /// - Parameters:
    ///   - path: the file.
    ///   - timeZone: the zone an EXIF date without `OffsetTimeOriginal` is read in (the person's).
    ///   - readPeople: whether to look for the names at all.
    /// - Returns: what the file says, and whom it names (empty when no one, or not looked for).
    /// - Throws: ``ProbeError``, as ``probe(path:timeZone:)``.
    public static func probe(path: String, timeZone: TimeZone = .current, readPeople: Bool) throws(ProbeError) -> (media: ProbedMedia, people: [String]) {
        try probe(path: path, timeZone: timeZone, readPeople: readPeople, hashPicture: false)
    }

    /// Reads `path`'s metadata, the people its XMP names, and, when asked, a still's picture hash
    /// (``ProbedMedia/pictureHash``) where it is cheap: the one time this reader decodes pixels. A
    /// JPEG's hash is taken from the thumbnail its EXIF holds (a camera's or a phone's 160×120), a
    /// HEIC's from its own thumbnail, a small file's from its picture (``PictureHash``); a large
    /// picture with no thumbnail, or one that does not decode, has none here.
    /// - Parameters:
    ///   - path: the file.
    ///   - timeZone: the zone an EXIF date without `OffsetTimeOriginal` is read in (the person's).
    ///   - readPeople: whether to look for the names at all.
    ///   - hashPicture: whether to hash a still's picture.
    /// - Returns: what the file says, and whom it names.
    /// - Throws: ``ProbeError``, as ``probe(path:timeZone:)``.
    static func probe(path: String, timeZone: TimeZone, readPeople: Bool, hashPicture: Bool) throws(ProbeError) -> (media: ProbedMedia, people: [String]) {
        // The importer asks for a Google Photos sidecar by its name (``TakeoutSidecar``).
        if path.lowercased().hasSuffix(".json") { return try TakeoutSidecar.read(path: path) }
        let file = try MediaFile(path: path)
        var (media, people, thumbnail) = try probeAll(file, timeZone: timeZone, readPeople: readPeople)
        if hashPicture, media.kind == .photo, !media.imageDataEndsEarly {
            media.pictureHash = PictureHash.cheap(path: path, contentType: media.contentType, size: file.size, thumbnail: thumbnail)
        }
        return (media, people)
    }

    /// ``probe(path:timeZone:readPeople:hashPicture:)``'s reading of a photo or video, and a JPEG's
    /// EXIF thumbnail's bytes.
    private static func probeAll(_ file: MediaFile, timeZone: TimeZone, readPeople: Bool) throws(ProbeError)
        -> (media: ProbedMedia, people: [String], thumbnail: [UInt8]?) {
        guard file.size > 0 else { throw ProbeError(.corrupt, "the file is empty") }
        let head = try file.read(at: 0, count: 32)
        guard let format = MediaFormat(head: head) else {
            if let image = MediaFormat.unreadImage(head: head) {
                throw ProbeError(.unsupported, "\(image): a photo format pickerd does not read yet")
            }
            throw ProbeError(.unsupported, "not a photo or video format pickerd reads")
        }
        /// What an XMP packet (and the place IPTC-IIM names) says of people and place, on `media`.
        func withXMP(_ media: ProbedMedia, _ packet: [UInt8]?, iim: XMPLocation? = nil, thumbnail: [UInt8]? = nil)
            -> (media: ProbedMedia, people: [String], thumbnail: [UInt8]?) {
            var media = media
            // One parse serves people and place.
            let root = packet.flatMap { try? ExportXML.parse($0, file: "XMP") }
            var place = XMPLocation()
            if let root, let packet, packet.count <= XMPLocation.maximumPacketBytes, let found = XMPLocation.read(root: root) { place = found }
            if let iim { place.fill(from: iim) }
            media.placeName = place.placeName
            media.placeCity = place.city
            return (media, root.map(XMPPeople.names(in:)) ?? [], thumbnail)
        }
        switch format {
        case .jpeg:
            let (media, xmp, iim, thumbnail) = try probeJPEG(file, timeZone: timeZone, wantXMP: readPeople)
            return withXMP(media, xmp.flatMap(XMPPeople.packet), iim: iim.flatMap(XMPLocation.read(app13:)), thumbnail: thumbnail)
        case .png:
            let (media, xmp) = try probePNG(file, timeZone: timeZone, wantXMP: readPeople)
            return withXMP(media, xmp.flatMap(XMPPeople.packet))
        case .tiff:
            let media = try probeTIFF(file, timeZone: timeZone)
            guard readPeople else { return (media, [], nil) }
            // A TIFF's or a DNG's XMP (Lightroom embeds it in a DNG) and its IPTC-IIM, from IFD0.
            let (xmp, iim) = try tiffPackets(file)
            return withXMP(media, xmp.flatMap(XMPPeople.packet), iim: iim)
        case .heic, .avif:
            let media = try probeHEIC(file, format: format, timeZone: timeZone)
            guard readPeople else { return (media, [], nil) }
            // The XMP item of a HEIC: exiftool and cameras write it ahead of the image data.
            let head = try file.read(at: 0, count: XMPPeople.headScanBytes)
            return withXMP(media, XMPPeople.packet(in: head))
        case .jxl:
            let media = try probeJXL(file, timeZone: timeZone)
            guard readPeople else { return (media, [], nil) }
            // An uncompressed `xml ` box ahead of the codestream (a `brob` one is not scanned).
            let head = try file.read(at: 0, count: XMPPeople.headScanBytes)
            return withXMP(media, XMPPeople.packet(in: head))
        case .webp:
            let (media, xmp) = try probeWebP(file, timeZone: timeZone, wantXMP: readPeople)
            return withXMP(media, xmp.flatMap(XMPPeople.packet))
        case .quicktime, .mp4: return (try probeVideo(file, format: format, timeZone: timeZone), [], nil)
        }
    }

    // MARK: Stills

    /// A JPEG's metadata, when `wantXMP` its XMP segment's packet (APP1, "http://ns.adobe.com/xap/1.0/")
    /// and its Photoshop image resources (APP13, "Photoshop 3.0", where IPTC-IIM lives), and the
    /// thumbnail its EXIF holds (``exifThumbnail(_:)``).
    private static func probeJPEG(_ file: MediaFile, timeZone: TimeZone, wantXMP: Bool) throws(ProbeError)
        -> (ProbedMedia, [UInt8]?, [UInt8]?, [UInt8]?) {
        var media = ProbedMedia(kind: .photo, contentType: MediaFormat.jpeg.contentType)
        var offset: Int64 = 2
        var exifBlock: [UInt8]?
        var xmp: [UInt8]?
        var iim: [UInt8]?
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
            if marker1 == 0xED, wantXMP, iim == nil, length > 16 {
                let payload = try file.read(at: offset + 4, count: Int(length - 2))
                if payload.starts(with: Array("Photoshop 3.0\0".utf8)) { iim = payload }
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
        return (media, xmp, iim, exifBlock.flatMap(exifThumbnail))
    }

    /// The JPEG thumbnail an EXIF block (a TIFF structure, from its byte-order mark) holds in its
    /// second IFD (`JPEGInterchangeFormat`, `JPEGInterchangeFormatLength`), bounded by the block;
    /// `nil` when there is none or it does not start as a JPEG.
    static func exifThumbnail(_ block: [UInt8]) -> [UInt8]? {
        guard block.count >= 8 else { return nil }
        let little: Bool
        switch (block[0], block[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ i: Int) -> Int? {
            guard i >= 0, i + 2 <= block.count else { return nil }
            return little ? Int(block[i]) | Int(block[i + 1]) << 8 : Int(block[i]) << 8 | Int(block[i + 1])
        }
        func u32(_ i: Int) -> Int? {
            guard let a = u16(i), let b = u16(i + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd0 = u32(4), let count0 = u16(ifd0), let ifd1 = u32(ifd0 + 2 + 12 * count0), ifd1 > 0,
              let count1 = u16(ifd1), count1 < 1_000 else { return nil }
        var start: Int?, length: Int?
        for entry in 0..<count1 {
            let at = ifd1 + 2 + 12 * entry
            guard let tag = u16(at) else { return nil }
            if tag == 0x0201 { start = u32(at + 8) }
            if tag == 0x0202 { length = u32(at + 8) }
        }
        guard let start, let length, length > 4, start <= block.count, length <= block.count - start,
              block[start] == 0xFF, block[start + 1] == 0xD8 else { return nil }
        return Array(block[start..<(start + length)])
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

    /// The most bytes of a PNG's XMP chunk (`iTXt` keyword `XML:com.adobe.xmp`) that are read.
    static let maximumPNGXMPChunk = 1 << 20

    /// A PNG's metadata and, when `wantXMP`, its XMP packet: an uncompressed `iTXt` chunk of
    /// keyword `XML:com.adobe.xmp` (as exiftool, GIMP and darktable write it; a compressed one is not read).
    private static func probePNG(_ file: MediaFile, timeZone: TimeZone, wantXMP: Bool) throws(ProbeError) -> (ProbedMedia, [UInt8]?) {
        var media = ProbedMedia(kind: .photo, contentType: MediaFormat.png.contentType)
        var offset: Int64 = 8
        var chunks = 0
        var exifBlock: [UInt8]?
        var xmp: [UInt8]?
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
            } else if type == "iTXt", wantXMP, xmp == nil, length > 22, length <= maximumPNGXMPChunk {
                // Keyword, NUL, compression flag 0, method, language NUL, translated keyword NUL, text.
                let body = try file.read(at: offset + 8, count: Int(length))
                let keyword = Array("XML:com.adobe.xmp\0".utf8)
                if body.starts(with: keyword), body[keyword.count] == 0 { xmp = body }
            } else if type == "IEND" {
                break
            }
            offset += 12 + length
        }
        if let exifBlock, let exif = readExif(exifBlock) {
            apply(exif, to: &media, timeZone: timeZone)
        }
        return (media, xmp)
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

    /// A TIFF's XMP packet (IFD0's tag 700, XMLPacket) and the place its IPTC-IIM names: in
    /// Photoshop's image resources (tag 34377) or, where they name none, the IPTC-NAA record (tag
    /// 33723), as Photoshop, Lightroom and exiftool write them. Each read at most
    /// ``XMPLocation/maximumPacketBytes``, within the file; nil where IFD0 has none.
    static func tiffPackets(_ file: MediaFile) throws(ProbeError) -> (xmp: [UInt8]?, iim: XMPLocation?) {
        let header = try file.read(at: 0, count: 8)
        guard header.count == 8 else { return (nil, nil) }
        let order = TIFFByteOrder(header)
        let u16 = order.u16, u32 = order.u32
        let ifd = u32(header, 4)
        guard ifd >= 8, ifd < Int(file.size) else { return (nil, nil) }
        let countBytes = try file.read(at: Int64(ifd), count: 2)
        guard countBytes.count == 2 else { return (nil, nil) }
        let count = min(u16(countBytes, 0), 1_024)
        let entries = try file.read(at: Int64(ifd) + 2, count: count * 12)
        guard entries.count == count * 12 else { return (nil, nil) }
        var values: [Int: [UInt8]] = [:]
        for index in 0..<count {
            let tag = u16(entries, index * 12), type = u16(entries, index * 12 + 2)
            guard [700, 33723, 34377].contains(tag) else { continue }
            // BYTE, UNDEFINED (1, 7) as written; IPTC-NAA also as LONG (4), as some tools write it.
            let size = u32(entries, index * 12 + 4) * (type == 4 ? 4 : type == 1 || type == 7 ? 1 : 0)
            guard size > 0, size <= XMPLocation.maximumPacketBytes else { continue }
            if size <= 4 { continue }  // no packet fits in an entry
            let offset = u32(entries, index * 12 + 8)
            guard offset >= 8, offset + size <= Int(file.size) else { continue }
            values[tag] = try file.read(at: Int64(offset), count: size)
        }
        let iim = values[34377].flatMap { XMPLocation.read(photoshopResources: $0[...]) } ?? values[33723].flatMap { XMPLocation.read(iim: $0[...]) }
        return (values[700], iim)
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
        let order = TIFFByteOrder(header)
        let little = order.little, u16 = order.u16, u32 = order.u32
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

    /// A HEIC's or an AVIF's metadata: both are HEIF files, which libheif reads alike (an AVIF's
    /// image items are AV1, decoded by libheif's dav1d or aom plugin only for thumbnails).
    private static func probeHEIC(_ file: MediaFile, format: MediaFormat, timeZone: TimeZone) throws(ProbeError) -> ProbedMedia {
        var media = ProbedMedia(kind: .photo, contentType: format.contentType)
        var info = pm_heif_info()
        var error = [CChar](repeating: 0, count: 256)
        let status = pm_heif_probe_fd(file.fd, &info, &error, error.count)
        let name = format == .avif ? "AVIF" : "HEIC"
        guard status == PM_OK else { throw ProbeError(status, message: "\(name): " + CText.error(error)) }
        if info.has_exif != 0 { apply(info.exif, to: &media, timeZone: timeZone) }
        // libheif applies the file's own rotation (irot/imir), which takes precedence over EXIF's
        // Orientation in HEIF: sizes are as displayed and nothing is left to rotate.
        media.orientation = 1
        media.pixelWidth = info.width
        media.pixelHeight = info.height
        return media
    }

    /// A JPEG XL's metadata: its size and the container's `Exif` box (bare or Brotli-compressed in
    /// a `brob` box), read by libjxl. A bare codestream (FF 0A) has no metadata but its size.
    private static func probeJXL(_ file: MediaFile, timeZone: TimeZone) throws(ProbeError) -> ProbedMedia {
        var media = ProbedMedia(kind: .photo, contentType: MediaFormat.jxl.contentType)
        var info = pm_jxl_info()
        var error = [CChar](repeating: 0, count: 256)
        let status = pm_jxl_probe_fd(file.fd, &info, &error, error.count)
        guard status == PM_OK else { throw ProbeError(status, message: "JPEG XL: " + CText.error(error)) }
        if info.has_exif != 0 { apply(info.exif, to: &media, timeZone: timeZone) }
        // libjxl applies the codestream's orientation when decoding (JPEG XL's own field, which
        // a writer keeps in step with EXIF's): sizes are as displayed and nothing is left to rotate.
        media.orientation = 1
        media.pixelWidth = info.width
        media.pixelHeight = info.height
        return media
    }

    /// The most bytes of an `EXIF` or `XMP ` chunk of a WebP that are read (libexif reads at most
    /// 64 KiB of EXIF anyway; an XMP packet naming people is far smaller).
    static let maximumWebPMetadataChunk = 4 << 20

    /// A WebP's metadata and, when `wantXMP`, its `XMP ` chunk's packet. The RIFF chunks are
    /// walked by their headers (Google's "WebP Container Specification"): the pixel size from the
    /// first image chunk (`VP8X`'s canvas, else `VP8 `'s key-frame header or `VP8L`'s header), the
    /// `EXIF` chunk's TIFF (libwebp's tools write it bare; some writers put JPEG's "Exif\0\0"
    /// before it: `pm_exif_read` takes both). Chunks are padded to even sizes.
    ///
    /// Corrupt: a RIFF size past the end of the file (a cut copy), a chunk that runs past the RIFF
    /// data, no image chunk, an image chunk whose header is not VP8's or VP8L's.
    private static func probeWebP(_ file: MediaFile, timeZone: TimeZone, wantXMP: Bool) throws(ProbeError) -> (ProbedMedia, [UInt8]?) {
        var media = ProbedMedia(kind: .photo, contentType: MediaFormat.webp.contentType)
        let header = try file.read(at: 0, count: 12)
        guard header.count == 12 else { throw ProbeError(.corrupt, "WebP: truncated RIFF header") }
        func le(_ b: [UInt8], _ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(b[at + $1]) << (8 * $1) } }
        let end = Int64(le(header, 4, 4)) + 8
        guard end <= file.size else {
            throw ProbeError(.corrupt, "WebP: truncated (the RIFF data says \(end) bytes, the file has \(file.size))")
        }
        var offset: Int64 = 12
        var size: (width: UInt32, height: UInt32)?
        var sawImage = false
        var exifBlock: [UInt8]?
        var xmp: [UInt8]?
        var chunks = 0
        while offset + 8 <= end {
            chunks += 1
            guard chunks < 100_000 else { throw ProbeError(.corrupt, "WebP: too many chunks") }
            let chunk = try file.read(at: offset, count: 8)
            guard chunk.count == 8 else { throw ProbeError(.corrupt, "WebP: truncated chunk header") }
            let type = chunk[0..<4].map { (0x20...0x7E).contains($0) ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
            let length = Int64(le(chunk, 4, 4))
            let body = offset + 8
            guard body + length <= end else {
                throw ProbeError(.corrupt, "WebP: chunk \(type) runs past the end of the RIFF data")
            }
            switch type {
            case "VP8X" where size == nil:
                let vp8x = try file.read(at: body, count: 10)
                guard vp8x.count == 10 else { throw ProbeError(.corrupt, "WebP: truncated VP8X chunk") }
                size = (UInt32(le(vp8x, 4, 3) + 1), UInt32(le(vp8x, 7, 3) + 1))
            case "VP8 ", "VP8L", "ANMF":
                if type == "VP8 " || type == "VP8L" {
                    let bits = try file.read(at: body, count: 10)
                    if type == "VP8 " {
                        // A key frame's tag (3 bytes), the start code 9D 01 2A, then 14-bit width and height.
                        guard bits.count == 10, bits[3...5].elementsEqual([0x9D, 0x01, 0x2A]) else {
                            throw ProbeError(.corrupt, "WebP: the VP8 chunk has no key-frame header")
                        }
                        if size == nil { size = (UInt32(le(bits, 6, 2) & 0x3FFF), UInt32(le(bits, 8, 2) & 0x3FFF)) }
                    } else {
                        // The signature 2F, then 14 bits of width − 1 and 14 of height − 1.
                        guard bits.count >= 5, bits[0] == 0x2F else { throw ProbeError(.corrupt, "WebP: the VP8L chunk has no signature") }
                        let packed = le(bits, 1, 4)
                        if size == nil { size = (UInt32(packed & 0x3FFF) + 1, UInt32((packed >> 14) & 0x3FFF) + 1) }
                    }
                }
                sawImage = true
            case "EXIF" where exifBlock == nil && length >= 8:
                exifBlock = try file.read(at: body, count: Int(min(length, Int64(maximumWebPMetadataChunk))))
            case "XMP " where wantXMP && xmp == nil:
                xmp = try file.read(at: body, count: Int(min(length, Int64(maximumWebPMetadataChunk))))
            default:
                break
            }
            offset = body + length + (length & 1)
        }
        guard sawImage else { throw ProbeError(.corrupt, "WebP: no image chunk (VP8, VP8L or ANMF)") }
        if let exifBlock, let exif = readExif(exifBlock) { apply(exif, to: &media, timeZone: timeZone) }
        // The bitstream's size is the picture's; EXIF's PixelXDimension may describe an original.
        if let size, size.width > 0, size.height > 0 {
            media.pixelWidth = size.width
            media.pixelHeight = size.height
        }
        return (media, xmp)
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

/// A TIFF's byte order, from its header's first byte ("II" Intel, "MM" Motorola), and its readers
/// of 16- and 32-bit values at an index of a byte array.
struct TIFFByteOrder {
    /// Intel order (least significant byte first).
    let little: Bool

    init(_ header: [UInt8]) { little = header.first == 0x49 }

    /// The 16-bit value at `i` of `b`.
    func u16(_ b: [UInt8], _ i: Int) -> Int { little ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i]) << 8 | Int(b[i + 1]) }

    /// The 32-bit value at `i` of `b`.
    func u32(_ b: [UInt8], _ i: Int) -> Int {
        little ? Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
            : Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }
}
