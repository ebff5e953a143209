import Glibc

/// An image an app sent as a descriptor with its donation, read whole and checked: a regular file
/// (or sealed memfd) of at most a bound, a PNG or a JPEG by its bytes (never by a name), with its
/// size in pixels read from the header. Nothing else of the app's file is kept.
struct DonatedImage {
    /// The file's bytes.
    var bytes: [UInt8]
    /// `image/png` or `image/jpeg`.
    var contentType: String
    /// `png` or `jpg`.
    var fileExtension: String
    /// Width in pixels.
    var width: UInt32
    /// Height in pixels.
    var height: UInt32

    /// Reads the image behind `descriptor` from its start (`fstat(2)`, `pread(2)`).
    /// - Parameters:
    ///   - descriptor: the app's descriptor.
    ///   - limit: the most bytes accepted.
    /// - Returns: the image, or why it is refused.
    static func read(_ descriptor: Int32, limit: Int) -> Result<DonatedImage, Refusal> {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(Refusal("an image descriptor cannot be read")) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(Refusal("an image must be a regular file or a memfd")) }
        guard info.st_size > 0 else { return .failure(Refusal("an image is empty")) }
        guard info.st_size <= limit else { return .failure(Refusal("an image is larger than \(limit >> 20) MiB")) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return .failure(Refusal("an image could not be read whole")) }
            done += n
        }
        if let (width, height) = pngSize(bytes) {
            return .success(DonatedImage(bytes: bytes, contentType: "image/png", fileExtension: "png", width: width, height: height))
        }
        if let (width, height) = jpegSize(bytes) {
            return .success(DonatedImage(bytes: bytes, contentType: "image/jpeg", fileExtension: "jpg", width: width, height: height))
        }
        return .failure(Refusal("an image must be a PNG or a JPEG"))
    }

    /// Why an image was refused: said to the app as INVALID_ARGUMENT.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A PNG's size from its IHDR chunk (which the format puts first).
    static func pngSize(_ b: [UInt8]) -> (UInt32, UInt32)? {
        guard b.count >= 24, b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), b[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        let width = b[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }, height = b[20..<24].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return width > 0 && height > 0 ? (width, height) : nil
    }

    /// A JPEG's size from its first start-of-frame marker (SOF0…SOF15 but DHT, JPG and DAC).
    static func jpegSize(_ b: [UInt8]) -> (UInt32, UInt32)? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 3 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }                 // fill bytes
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard i + 8 < b.count else { return nil }
                let height = UInt32(b[i + 5]) << 8 | UInt32(b[i + 6]), width = UInt32(b[i + 7]) << 8 | UInt32(b[i + 8])
                return width > 0 && height > 0 ? (width, height) : nil
            }
            if marker == 0xDA || marker == 0xD9 { return nil }      // scan data before any frame header
            i += 2 + length
        }
        return nil
    }
}
