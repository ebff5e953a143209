// What follows a JPEG's end of image, for ``ExifRedactor``. Cameras and phones append more after
// the first image's EOI, and each part can carry its own location:
//
// - a multi-picture file (CIPA MPF: a camera's second view, an Ultra HDR gain map) appends whole
//   JPEGs, each with its own APP1 EXIF and XMP; each is redacted as the first one was (the MPF APP2
//   segment that indexes them holds offsets and sizes, no location, and stays as it is);
// - a motion photo (Google's "MotionPhoto"/"MicroVideo", Samsung's) appends an MP4 with its own
//   location atoms; it is redacted with the ISO base media redaction run on its own bytes (its box
//   offsets count from its own start), written back in place, so the offsets the XMP gives for it
//   (counted from the end of the file) stay right. An MP4 that does not start right after the image
//   (Samsung writes a "MotionPhoto_Data" marker before it) is found by its `ftyp` box; what lies
//   between is zeroed, never released;
// - anything else, or a part that cannot be parsed, is cut off with everything after it: the file
//   released is then shorter, and none of what was not understood leaves.
//
// At most ``ExifRedactor/maximumTrailerParts`` parts are followed; the rest is cut off.

extension ExifRedactor {
    /// The most parts (images, movies) a JPEG's trailer may hold before the rest is cut off.
    static let maximumTrailerParts = 16

    /// A JPEG file, or one embedded at `start`, with its trailer: the image is redacted, then every
    /// part that follows (see the top of this file).
    /// - Parameters:
    ///   - out: the buffer.
    ///   - start: where the JPEG's SOI is.
    ///   - nesting: how deep it is inside other images.
    /// - Returns: where what may be released ends: the buffer's end, or where a part that was not
    ///   understood starts (the caller cuts the rest off, or zeroes it where nothing can be cut).
    /// - Throws: ``Unreadable`` when the first image itself cannot be parsed.
    static func jpegWithTrailer(_ out: inout [UInt8], at start: Int, nesting: Int) throws -> Int {
        guard var at = try jpegImage(&out, at: start, nesting: nesting) else { return out.count }
        var parts = 0
        while at < out.count {
            parts += 1
            guard parts <= maximumTrailerParts else { return at }
            if out.count - at >= 3, out[at] == 0xFF, out[at + 1] == 0xD8, out[at + 2] == 0xFF {
                // An appended JPEG. One that cannot be parsed is cut off, with what follows it.
                do {
                    guard let end = try jpegImage(&out, at: at, nesting: nesting) else { return out.count }
                    at = end
                } catch is Unreadable {
                    return at
                }
                continue
            }
            guard let movie = appendedMovie(out, from: at) else { return at }
            do {
                var bytes = Array(out[movie])
                try isoBaseMedia(&bytes)
                for i in at..<movie.lowerBound { out[i] = 0 }
                out.replaceSubrange(movie, with: bytes)
                at = movie.upperBound
            } catch is Unreadable {
                return at
            }
        }
        return at
    }

    /// The ISO base media file (a motion photo's MP4) in a JPEG's trailer, from `start` on: one that
    /// starts right there, or else the first `ftyp` box further on that starts one.
    /// - Returns: the movie's bytes: its run of whole top-level boxes, which must hold a `moov` or a
    ///   `meta`; `nil` when there is none.
    static func appendedMovie(_ b: [UInt8], from start: Int) -> Range<Int>? {
        if let end = boxRun(b, at: start) { return start..<end }
        let ftyp: [UInt8] = Array("ftyp".utf8)
        var at = start + 4
        while at + 4 <= b.count, let f = b[at...].firstIndex(of: ftyp[0]) {
            if f + 4 <= b.count, b[f..<(f + 4)].elementsEqual(ftyp), let end = boxRun(b, at: f - 4) { return (f - 4)..<end }
            at = f + 1
        }
        return nil
    }

    /// Where a run of whole top-level boxes that starts with `ftyp` at `start` ends: at the end of
    /// the buffer, or before the first bytes that are not a box. `nil` when there is no such run or
    /// it holds neither a `moov` nor a `meta` (no movie, no HEIF).
    private static func boxRun(_ b: [UInt8], at start: Int) -> Int? {
        guard start >= 0, start + 8 <= b.count, be32(b, start + 4) == fourCC("ftyp") else { return nil }
        var at = start
        var content = false
        while b.count - at >= 8 {
            let type = be32(b, at + 4)
            let printable = (0..<4).allSatisfy { i in
                let c = b[at + 4 + i]
                return (0x20...0x7E).contains(c) || c == 0xA9
            }
            guard printable else { break }
            var size = Int(be32(b, at))
            if size == 1 {
                guard b.count - at >= 16 else { break }
                let large = UInt64(be32(b, at + 8)) << 32 | UInt64(be32(b, at + 12))
                guard large <= UInt64(b.count - at) else { break }
                size = Int(large)
            } else if size == 0 {
                size = b.count - at
            }
            guard size >= 8, size <= b.count - at else { break }
            if type == fourCC("moov") || type == fourCC("meta") { content = true }
            at += size
        }
        return content ? at : nil
    }
}
