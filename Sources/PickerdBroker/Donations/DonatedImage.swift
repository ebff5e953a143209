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
        let bytes: [UInt8]
        switch BoundedFile.read(descriptor: descriptor, limit: limit) {
        case .success(let read): bytes = read
        case .failure(.unreadable): return .failure(Refusal("an image descriptor cannot be read"))
        case .failure(.notRegular): return .failure(Refusal("an image must be a regular file or a memfd"))
        case .failure(.empty): return .failure(Refusal("an image is empty"))
        case .failure(.tooLarge): return .failure(Refusal("an image is larger than \(limit >> 20) MiB"))
        case .failure(.short): return .failure(Refusal("an image could not be read whole"))
        }
        // The header reader the listening service stores artwork with; donations take PNG and JPEG only.
        guard let header = ImageHeader(bytes), ["image/png", "image/jpeg"].contains(header.contentType), header.width > 0, header.height > 0 else {
            return .failure(Refusal("an image must be a PNG or a JPEG"))
        }
        return .success(DonatedImage(bytes: bytes, contentType: header.contentType, fileExtension: header.fileExtension,
                                     width: header.width, height: header.height))
    }

    /// Why an image was refused: said to the app as INVALID_ARGUMENT.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
