/// The formats pickerd reads, told apart by content.
enum MediaFormat: Equatable {
    case jpeg, png, tiff, heic, avif, webp, jxl, quicktime, mp4

    /// Its MIME type.
    var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .tiff: "image/tiff"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .webp: "image/webp"
        case .jxl: "image/jxl"
        case .quicktime: "video/quicktime"
        case .mp4: "video/mp4"
        }
    }

    /// The name of a photo format `head` starts that pickerd knows but does not read (BigTIFF), so
    /// that such a photo is named as what it is, not as no photo at all.
    static func unreadImage(head: [UInt8]) -> String? {
        if head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return "a BigTIFF" }
        return nil
    }

    /// The format `head` (a file's first bytes, up to 32) starts, `nil` for anything else.
    init?(head: [UInt8]) {
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { self = .jpeg; return }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { self = .png; return }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { self = .tiff; return }
        // JPEG XL: a bare codestream (FF 0A), or the ISO BMFF container's `JXL ` signature box.
        if head.starts(with: [0xFF, 0x0A]) || head.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            self = .jxl
            return
        }
        guard head.count >= 12 else { return nil }
        // RIFF, its size, then the form type: a WebP's chunks (VP8, VP8L or VP8X first) follow.
        if head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) { self = .webp; return }
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
            if major == "avif" || major == "avis" {
                self = .avif  // AV1 in HEIF: libheif reads it as a HEIC, decoding with its AV1 plugin (dav1d, aom)
            } else if heic.contains(major) {
                // A bare HEIF brand whose compatible brands say AV1 (AVIF) and not HEVC is an AVIF.
                if (major == "mif1" || major == "msf1"), brands.contains("avif") || brands.contains("avis"),
                   !brands.dropFirst().contains(where: { ["heic", "heix", "hevc", "hevx"].contains($0) }) {
                    self = .avif
                    return
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
