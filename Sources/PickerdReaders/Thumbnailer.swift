import CMedia
public import PickerdImport

/// Small previews of a person's photos and videos for the pickers: decodes the picture (a HEIC
/// or an AVIF through libheif, a WebP through libwebp, a JPEG XL through libjxl; a video's first
/// frame, a JPEG, PNG or TIFF through FFmpeg), scales it to fit, turns it upright and encodes a
/// PNG without metadata (FFmpeg's PNG encoder).
public enum Thumbnailer {
    /// The largest WebP previewed (libwebp decodes from memory, so the file is read whole): far
    /// above a phone's or a camera's WebP.
    static let maximumWebPBytes: Int64 = 64 << 20

    /// A PNG preview of `path`.
    /// - Parameters:
    ///   - path: the file.
    ///   - contentType: its type as ``MediaProbe`` read it (`image/jpeg`, `image/png`, `image/tiff`,
    ///     `image/heic`, `image/avif`, `image/webp`, `image/jxl`, `video/quicktime`, `video/mp4`).
    ///   - maxSide: the preview's longest side in pixels (aspect kept; a smaller picture is not enlarged).
    ///   - orientation: the EXIF orientation 1…8 to apply, as ``ProbedMedia/orientation`` reports it
    ///     (for a HEIC that is 1: libheif applies the file's own rotation; for a video, its display
    ///     matrix as an orientation).
    /// - Returns: the PNG's bytes.
    /// - Throws: ``ProbeError``: `.unreadable` (cannot open, not a regular file), `.unsupported`
    ///   (another type, over 100 megapixels), `.corrupt` (nothing decodes).
    public static func png(path: String, contentType: String, maxSide: Int = 256, orientation: Int = 1) throws(ProbeError) -> [UInt8] {
        let picture = try decode(path: path, contentType: contentType, maxSide: maxSide)
        let upright = picture.pixels.withUnsafeBufferPointer {
            orient($0, width: picture.width, height: picture.height, orientation: orientation)
        }
        var error = [CChar](repeating: 0, count: 256)
        var png: UnsafeMutablePointer<UInt8>?
        var size = 0
        let encoded = upright.pixels.withUnsafeBufferPointer {
            pm_encode_png($0.baseAddress, Int32(upright.width), Int32(upright.height), &png, &size, &error, error.count)
        }
        defer { pm_free(png) }
        guard encoded == PM_OK, let png else { throw ProbeError(encoded, message: "thumbnail: " + CText.error(error)) }
        return Array(UnsafeBufferPointer(start: png, count: size))
    }

    /// `path`'s picture as RGB24 pixels, scaled to fit `maxSide` (a smaller picture is not enlarged),
    /// as stored (not turned upright). A JPEG is decoded at 1/2, 1/4 or 1/8 of its size when that
    /// still fits, a HEIC from the thumbnail it holds when that is large enough.
    /// - Parameters: as ``png(path:contentType:maxSide:orientation:)``, and
    /// - Returns: the pixels, three bytes each, row by row, and the size.
    /// - Throws: ``ProbeError``, as ``png(path:contentType:maxSide:orientation:)``.
    ///   - thumbnailOnly: only a thumbnail the file holds (a HEIC's), else `.unsupported`.
    static func decode(path: String, contentType: String, maxSide: Int, thumbnailOnly: Bool = false) throws(ProbeError)
        -> (pixels: [UInt8], width: Int, height: Int) {
        // Opened through ReaderFiles (a directory or FIFO refused); the libraries read its descriptor.
        let file = try MediaFile(path: path)
        defer { withExtendedLifetime(file) {} }  // its descriptor stays open while the libraries read it
        let side = Int32(clamping: max(1, maxSide))
        var rgb = pm_rgb()
        var error = [CChar](repeating: 0, count: 256)
        let status: pm_status
        if thumbnailOnly, !["image/heic", "image/heif", "image/avif"].contains(contentType) {
            throw ProbeError(.unsupported, "no thumbnail held in \(contentType)")
        }
        switch contentType {
        case "image/heic", "image/heif", "image/avif":
            status = pm_decode_heif_fd(file.fd, side, thumbnailOnly ? 1 : 0, &rgb, &error, error.count)
        case "image/jxl":
            status = pm_decode_jxl_fd(file.fd, side, &rgb, &error, error.count)
        case "image/webp":
            // libwebp decodes from memory: the file is read whole, bounded.
            guard file.size <= maximumWebPBytes else {
                throw ProbeError(.unsupported, "thumbnail: a WebP of \(file.size) bytes is over the \(maximumWebPBytes)-byte limit")
            }
            let bytes = try file.read(at: 0, count: Int(file.size))
            status = bytes.withUnsafeBufferPointer { pm_decode_webp($0.baseAddress, $0.count, side, &rgb, &error, error.count) }
        case "image/jpeg":
            status = pm_decode_av_fd(file.fd, "jpeg_pipe", side, &rgb, &error, error.count)
        case "image/png":
            status = pm_decode_av_fd(file.fd, "png_pipe", side, &rgb, &error, error.count)
        case "image/tiff":
            status = pm_decode_av_fd(file.fd, "tiff_pipe", side, &rgb, &error, error.count)
        case "video/quicktime", "video/mp4":
            status = pm_decode_av_fd(file.fd, nil, side, &rgb, &error, error.count)
        default:
            throw ProbeError(.unsupported, "no thumbnails for \(contentType)")
        }
        defer { pm_rgb_free(&rgb) }
        guard status == PM_OK, let pixels = rgb.pixels else { throw ProbeError(status, message: "thumbnail: " + CText.error(error)) }
        let width = Int(rgb.width), height = Int(rgb.height)
        return (Array(UnsafeBufferPointer(start: pixels, count: width * height * 3)), width, height)
    }

    /// RGB24 pixels turned as EXIF `orientation` says (1 or out of range: as stored).
    static func orient(_ source: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int, orientation: Int)
        -> (pixels: [UInt8], width: Int, height: Int) {
        let swaps = (5...8).contains(orientation)
        let outWidth = swaps ? h : w, outHeight = swaps ? w : h
        guard (2...8).contains(orientation) else { return (Array(source), w, h) }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        out.withUnsafeMutableBufferPointer { dst in
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    let sx: Int, sy: Int
                    switch orientation {
                    case 2: (sx, sy) = (w - 1 - ox, oy)  // mirrored
                    case 3: (sx, sy) = (w - 1 - ox, h - 1 - oy)  // turned 180°
                    case 4: (sx, sy) = (ox, h - 1 - oy)  // flipped
                    case 5: (sx, sy) = (oy, ox)  // transposed
                    case 6: (sx, sy) = (oy, h - 1 - ox)  // turn 90° clockwise to display
                    case 7: (sx, sy) = (w - 1 - oy, h - 1 - ox)  // transversed
                    default: (sx, sy) = (w - 1 - oy, ox)  // 8: turn 90° counter-clockwise
                    }
                    let s = (sy * w + sx) * 3, d = (oy * outWidth + ox) * 3
                    dst[d] = source[s]
                    dst[d + 1] = source[s + 1]
                    dst[d + 2] = source[s + 2]
                }
            }
        }
        return (out, outWidth, outHeight)
    }
}
