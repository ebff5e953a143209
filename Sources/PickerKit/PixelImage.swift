import Foundation

/// An RGB image: a preview's pixels, for pickers that draw them themselves (the terminal picker's
/// cells; the window picker's first frame of a clip).
public struct PixelImage: Sendable {
    public let width: Int
    public let height: Int
    /// 0xRRGGBB per pixel, row by row.
    public let pixels: [UInt32]

    /// An image of `width` × `height` pixels.
    public init(width: Int, height: Int, pixels: [UInt32]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The first frame of a YUV4MPEG2 clip (4:2:0, full-range JPEG colors), or `nil`.
    public init?(y4m bytes: [UInt8]) {
        guard let headerEnd = bytes.firstIndex(of: 0x0A), bytes.starts(with: Array("YUV4MPEG2 ".utf8)) else { return nil }
        let header = String(decoding: bytes[0..<headerEnd], as: UTF8.self).split(separator: " ")
        guard let w = header.first(where: { $0.hasPrefix("W") }).flatMap({ Int($0.dropFirst()) }),
              let h = header.first(where: { $0.hasPrefix("H") }).flatMap({ Int($0.dropFirst()) }),
              w > 0, h > 0, w * h <= 16_000_000,
              header.first(where: { $0.hasPrefix("C") }).map({ $0.hasPrefix("C420") }) ?? true else { return nil }
        let frame = bytes[(headerEnd + 1)...]
        guard let frameEnd = frame.firstIndex(of: 0x0A), frame.starts(with: Array("FRAME".utf8)) else { return nil }
        let y = frameEnd + 1, cw = (w + 1) / 2, ch = (h + 1) / 2
        let u = y + w * h, v = u + cw * ch
        guard v + cw * ch <= bytes.count else { return nil }
        var pixels = [UInt32](repeating: 0, count: w * h)
        for row in 0..<h {
            for column in 0..<w {
                let luma = Double(bytes[y + row * w + column])
                let cb = Double(bytes[u + (row / 2) * cw + column / 2]) - 128, cr = Double(bytes[v + (row / 2) * cw + column / 2]) - 128
                func clamp(_ x: Double) -> UInt32 { UInt32(max(0, min(255, x.rounded()))) }
                pixels[row * w + column] = clamp(luma + 1.402 * cr) << 16 | clamp(luma - 0.344_136 * cb - 0.714_136 * cr) << 8
                    | clamp(luma + 1.772 * cb)
            }
        }
        width = w
        height = h
        self.pixels = pixels
    }

    /// The image fitted into `columns` × `rows` cells of two pixels each (aspect kept, centred):
    /// for each cell, its top and bottom colour, or `nil` outside the picture.
    public func cells(columns: Int, rows: Int) -> [[(top: UInt32, bottom: UInt32)?]] {
        let scale = min(Double(columns) / Double(width), Double(rows * 2) / Double(height))
        let w = max(1, Int(Double(width) * scale)), h = max(1, Int(Double(height) * scale))
        let left = (columns - w) / 2, top = (rows * 2 - h) / 2
        func sample(_ x: Int, _ y: Int) -> UInt32? {
            let px = x - left, py = y - top
            guard px >= 0, py >= 0, px < w, py < h else { return nil }
            return pixels[min(height - 1, py * height / h) * width + min(width - 1, px * width / w)]
        }
        return (0..<rows).map { row in
            (0..<columns).map { column in
                let upper = sample(column, row * 2), lower = sample(column, row * 2 + 1)
                guard upper != nil || lower != nil else { return nil }
                return (upper ?? 0, lower ?? 0)
            }
        }
    }

    /// Three bytes per pixel (red, green, blue), row by row.
    public var rgb: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: pixels.count * 3)
        for (index, pixel) in pixels.enumerated() {
            bytes[index * 3] = UInt8(pixel >> 16 & 0xFF)
            bytes[index * 3 + 1] = UInt8(pixel >> 8 & 0xFF)
            bytes[index * 3 + 2] = UInt8(pixel & 0xFF)
        }
        return bytes
    }
}
