import CTerminal
import Foundation
import PickerKit

extension PixelImage {
    /// Decodes `bytes`, or `nil` when they are not a PNG this decoder reads.
    init?(png bytes: [UInt8]) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count > 33, Array(bytes[0..<8]) == signature else { return nil }
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        var offset = 8
        var width = 0, height = 0, colorType = -1
        var compressed: [UInt8] = []
        while offset + 12 <= bytes.count {
            let length = u32(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let data = offset + 8
            guard length >= 0, data + length + 4 <= bytes.count else { return nil }
            switch type {
            case "IHDR":
                width = u32(data)
                height = u32(data + 4)
                guard bytes[data + 8] == 8, bytes[data + 12] == 0 else { return nil }  // 8-bit, not interlaced
                colorType = Int(bytes[data + 9])
            case "IDAT":
                compressed += bytes[data..<(data + length)]
            default:
                break
            }
            if type == "IEND" { break }
            offset = data + length + 4
        }
        let channels: Int
        switch colorType {
        case 0: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: return nil
        }
        guard width > 0, height > 0, width * height <= 16_000_000 else { return nil }
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        let written = compressed.withUnsafeBufferPointer { src in
            raw.withUnsafeMutableBufferPointer { dst in term_inflate(src.baseAddress, src.count, dst.baseAddress, dst.count) }
        }
        guard written == raw.count else { return nil }
        // Undo the per-row filters (PNG specification, section 9).
        var image = [UInt8](repeating: 0, count: height * stride)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            let line = row * (stride + 1) + 1
            for i in 0..<stride {
                let x = raw[line + i]
                let a = i >= channels ? Int(image[row * stride + i - channels]) : 0
                let b = row > 0 ? Int(image[(row - 1) * stride + i]) : 0
                let c = (i >= channels && row > 0) ? Int(image[(row - 1) * stride + i - channels]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: return nil
                }
                image[row * stride + i] = UInt8(truncatingIfNeeded: Int(x) + predicted)
            }
        }
        var pixels = [UInt32](repeating: 0, count: width * height)
        for p in 0..<(width * height) {
            let base = p * channels
            let (r, g, b): (UInt8, UInt8, UInt8) = channels >= 3 ? (image[base], image[base + 1], image[base + 2])
                                                                  : (image[base], image[base], image[base])
            pixels[p] = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        }
        self.init(width: width, height: height, pixels: pixels)
    }
}
