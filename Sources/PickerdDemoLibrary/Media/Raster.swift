import Foundation

/// A small RGB canvas for the demo library's generated pictures: photos, artwork, icons, initials.
package struct Raster: Sendable {
    package let width: Int
    package let height: Int
    package private(set) var pixels: [UInt8]

    package init(width: Int, height: Int, fill: RGB = RGB(0, 0, 0)) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        fillRect(x: 0, y: 0, w: width, h: height, fill)
    }

    /// A colour, 8 bits a channel.
    package struct RGB: Sendable, Hashable {
        package var r: UInt8, g: UInt8, b: UInt8
        package init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }
        /// Linear mix: t = 0 gives self, t = 1 gives other.
        package func mixed(_ other: RGB, _ t: Double) -> RGB {
            func m(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8(max(0, min(255, Double(a) + (Double(b) - Double(a)) * t))) }
            return RGB(m(r, other.r), m(g, other.g), m(b, other.b))
        }
    }

    package mutating func set(_ x: Int, _ y: Int, _ c: RGB) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        pixels[i] = c.r
        pixels[i + 1] = c.g
        pixels[i + 2] = c.b
    }

    package mutating func fillRect(x: Int, y: Int, w: Int, h: Int, _ c: RGB) {
        for yy in max(0, y)..<min(height, y + h) { for xx in max(0, x)..<min(width, x + w) { set(xx, yy, c) } }
    }

    /// A vertical gradient from `top` to `bottom` over rows `y0..<y1`.
    package mutating func verticalGradient(_ top: RGB, _ bottom: RGB, y0: Int = 0, y1: Int? = nil) {
        let end = y1 ?? height
        for y in y0..<end {
            let c = top.mixed(bottom, Double(y - y0) / Double(max(1, end - y0 - 1)))
            for x in 0..<width { set(x, y, c) }
        }
    }

    package mutating func disc(cx: Int, cy: Int, radius: Int, _ c: RGB) {
        for y in (cy - radius)...(cy + radius) {
            for x in (cx - radius)...(cx + radius) where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius {
                set(x, y, c)
            }
        }
    }

    /// A hill line: for each column, rows below `base + amplitude·sin(…)` get `c`.
    package mutating func hills(base: Int, amplitude: Double, period: Double, phase: Double, _ c: RGB) {
        for x in 0..<width {
            let top = base + Int(amplitude * sin(Double(x) / period + phase))
            for y in max(0, top)..<height { set(x, y, c) }
        }
    }

    /// Draws text in a 5×7 bitmap font (A–Z, 0–9, a few signs), each dot `scale` pixels, centred.
    package mutating func text(_ string: String, centerX: Int, centerY: Int, scale: Int, _ c: RGB) {
        let glyphs = string.uppercased().compactMap { Font.glyphs[$0] ?? Font.glyphs[" "] }
        let totalWidth = glyphs.count * 6 * scale - scale
        var x0 = centerX - totalWidth / 2
        let y0 = centerY - 7 * scale / 2
        for glyph in glyphs {
            for (row, bits) in glyph.enumerated() {
                for col in 0..<5 where bits & (0x10 >> col) != 0 {
                    fillRect(x: x0 + col * scale, y: y0 + row * scale, w: scale, h: scale, c)
                }
            }
            x0 += 6 * scale
        }
    }
}

/// A 5×7 dot font: each glyph is seven rows of five bits (bit 4 is the leftmost dot).
enum Font {
    static let glyphs: [Character: [UInt8]] = [
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "B": [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E], "D": [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "G": [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F], "H": [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E], "J": [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        "K": [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11], "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "P": [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        "Q": [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "V": [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A], "X": [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        "Y": [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04], "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        " ": [0, 0, 0, 0, 0, 0, 0], "-": [0, 0, 0, 0x1F, 0, 0, 0], "+": [0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0],
        "!": [0x04, 0x04, 0x04, 0x04, 0x04, 0, 0x04], "?": [0x0E, 0x11, 0x01, 0x02, 0x04, 0, 0x04],
    ]
}
