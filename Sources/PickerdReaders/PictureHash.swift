import Glibc
public import PickerdImport

/// A photo's difference hash (dHash): 64 bits that two pictures of one scene share all but a few of,
/// however they were scaled or compressed, for telling near-duplicates apart from other photos
/// (issue 42: frames of a burst with no key to say so, two presses of the shutter).
///
/// The picture is decoded small (a JPEG's EXIF thumbnail, else ``Thumbnailer``'s decoders: a JPEG
/// at 1/8 of its size, a HEIC from the thumbnail it holds), made grey, averaged into 9×8 cells, and each bit says whether a cell is
/// brighter than the one to its right. Two hashes a few bits apart are
/// the same scene (`NotAMemoryRules.nearDuplicates`). It is taken of the pixels as stored: two frames of one burst are stored turned
/// alike.
public enum PictureHash {
    /// The longest side the picture is decoded at: enough for 9×8 cells of several pixels each.
    static let decodedSide = 64

    /// `path`'s hash.
    /// - Parameters:
    ///   - path: the photo.
    ///   - contentType: its type as ``MediaProbe`` read it.
    /// - Returns: the hash.
    /// - Throws: ``ProbeError``, as ``Thumbnailer/png(path:contentType:maxSide:orientation:)``.
    public static func of(path: String, contentType: String) throws(ProbeError) -> UInt64 {
        try of(path: path, contentType: contentType, thumbnailOnly: false)
    }

    /// The most bytes a still may have to be hashed while probed when it holds no thumbnail: its
    /// decode costs a few milliseconds (a 12-megapixel JPEG's costs a hundred or more, so it is
    /// hashed only when another photo was taken seconds from it: ``FileReading/pictureHash(path:contentType:)``).
    public static let cheapBytes: Int64 = 256 << 10

    /// `path`'s hash when it is cheap to take: from a thumbnail the file holds (`thumbnail`, a
    /// JPEG's EXIF one; a HEIC's own), or from a picture of at most ``cheapBytes``; else `nil`.
    static func cheap(path: String, contentType: String, size: Int64, thumbnail: [UInt8]?) -> UInt64? {
        if let thumbnail, let hash = try? of(jpeg: thumbnail) { return hash }
        if size <= cheapBytes { return try? of(path: path, contentType: contentType) }
        return try? of(path: path, contentType: contentType, thumbnailOnly: true)
    }

    private static func of(path: String, contentType: String, thumbnailOnly: Bool) throws(ProbeError) -> UInt64 {
        let picture = try Thumbnailer.decode(path: path, contentType: contentType, maxSide: decodedSide, thumbnailOnly: thumbnailOnly)
        return hash(rgb: picture.pixels, width: picture.width, height: picture.height)
    }

    /// The hash of a JPEG held in memory (an EXIF thumbnail).
    /// - Parameter jpeg: the JPEG's bytes.
    /// - Returns: the hash.
    /// - Throws: ``ProbeError``: `.unreadable` when it cannot be put in a file of memory, else as
    ///   ``of(path:contentType:)``.
    public static func of(jpeg: [UInt8]) throws(ProbeError) -> UInt64 {
        guard let fd = ReaderFiles.memoryFile("pickerd-thumbnail", jpeg) else {
            throw ProbeError(.unreadable, "a thumbnail cannot be put in memory: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        // A file made in memory, read through the readers' overlay as a zip's members are, so the
        // one decoding path serves; named by its descriptor, unique while it is open.
        let name = "/memory/exif-thumbnail-\(fd).jpg"
        return try ReaderFiles.withOverlay([name: fd]) {
            Result { () throws(ProbeError) in try of(path: name, contentType: "image/jpeg") }
        }.get()
    }

    /// The hash of RGB24 pixels.
    /// - Parameters:
    ///   - rgb: three bytes a pixel, row by row.
    ///   - width: pixels a row (at least 1).
    ///   - height: rows (at least 1).
    /// - Returns: the hash: bit `8 × row + column` set when cell (column, row) is brighter than
    ///   cell (column + 1, row).
    static func hash(rgb: [UInt8], width: Int, height: Int) -> UInt64 {
        guard width > 0, height > 0, rgb.count >= width * height * 3 else { return 0 }
        // Luma (Rec. 601), then each of the 9×8 cells the mean of what it covers: pixels weighed by
        // how much of them lies in the cell, so a picture smaller than 9×8 is sampled, not skipped.
        var grey = [Double](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            grey[i] = 0.299 * Double(rgb[3 * i]) + 0.587 * Double(rgb[3 * i + 1]) + 0.114 * Double(rgb[3 * i + 2])
        }
        func cell(_ column: Int, _ row: Int) -> Double {
            let x0 = Double(column) * Double(width) / 9, x1 = Double(column + 1) * Double(width) / 9
            let y0 = Double(row) * Double(height) / 8, y1 = Double(row + 1) * Double(height) / 8
            var sum = 0.0, area = 0.0
            for y in Int(y0)..<min(height, Int(y1.rounded(.up))) {
                let dy = min(y1, Double(y + 1)) - max(y0, Double(y))
                guard dy > 0 else { continue }
                for x in Int(x0)..<min(width, Int(x1.rounded(.up))) {
                    let dx = min(x1, Double(x + 1)) - max(x0, Double(x))
                    guard dx > 0 else { continue }
                    sum += grey[y * width + x] * dx * dy
                    area += dx * dy
                }
            }
            return area > 0 ? sum / area : 0
        }
        var bits: UInt64 = 0
        for row in 0..<8 {
            let cells = (0..<9).map { cell($0, row) }
            for column in 0..<8 where cells[column] > cells[column + 1] {
                bits |= 1 << UInt64(8 * row + column)
            }
        }
        return bits
    }
}
