/// What an image file is, read from its first bytes: its type and, for PNG, JPEG and GIF, its size.
/// Enough to store artwork and icons with the right content type; nothing is decoded.
struct ImageHeader: Hashable, Sendable {
    /// The MIME type.
    var contentType: String
    /// The file name extension that goes with it.
    var fileExtension: String
    /// Width in pixels, 0 when the header does not say.
    var width: UInt32
    /// Height in pixels, 0 when the header does not say.
    var height: UInt32

    /// Reads the header of `bytes`; `nil` when they are not a PNG, JPEG, GIF or WebP image.
    init?(_ bytes: [UInt8]) {
        func be32(_ at: Int) -> UInt32 {
            bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self.init(contentType: "image/png", fileExtension: "png", width: be32(16), height: be32(20))
        } else if bytes.count >= 4, bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            let (width, height) = Self.jpegSize(bytes)
            self.init(contentType: "image/jpeg", fileExtension: "jpg", width: width, height: height)
        } else if bytes.count >= 10, bytes.starts(with: Array("GIF8".utf8)) {
            self.init(contentType: "image/gif", fileExtension: "gif", width: UInt32(bytes[6]) | UInt32(bytes[7]) << 8,
                      height: UInt32(bytes[8]) | UInt32(bytes[9]) << 8)
        } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            self.init(contentType: "image/webp", fileExtension: "webp", width: 0, height: 0)
        } else {
            return nil
        }
    }

    private init(contentType: String, fileExtension: String, width: UInt32, height: UInt32) {
        self.contentType = contentType
        self.fileExtension = fileExtension
        self.width = width
        self.height = height
    }

    /// A JPEG's size from its first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC); 0×0
    /// when none comes before the image data.
    private static func jpegSize(_ bytes: [UInt8]) -> (UInt32, UInt32) {
        var at = 2
        while at + 9 < bytes.count {
            guard bytes[at] == 0xFF else { return (0, 0) }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (UInt32(bytes[at + 7]) << 8 | UInt32(bytes[at + 8]), UInt32(bytes[at + 5]) << 8 | UInt32(bytes[at + 6]))
            }
            if marker == 0xDA || length < 2 { return (0, 0) }
            at += 2 + length
        }
        return (0, 0)
    }
}
