/// A YUV4MPEG2 video encoder: uncompressed 4:2:0 frames behind a one-line header, a real format that
/// ffmpeg, mpv and VLC play. The demo's Live Photo parts and videos are short clips of a moving scene.
package enum Y4M {
    package static let contentType = "video/x-yuv4mpeg2"

    package static func encode(frames: [Raster], framesPerSecond: Int) -> [UInt8] {
        guard let first = frames.first else { return [] }
        var out = Array("YUV4MPEG2 W\(first.width) H\(first.height) F\(framesPerSecond):1 Ip A1:1 C420jpeg\n".utf8)
        for frame in frames {
            out += Array("FRAME\n".utf8)
            let w = frame.width, h = frame.height
            var y = [UInt8](repeating: 0, count: w * h)
            var u = [UInt8](repeating: 128, count: (w / 2) * (h / 2))
            var v = [UInt8](repeating: 128, count: (w / 2) * (h / 2))
            for row in 0..<h {
                for col in 0..<w {
                    let i = (row * w + col) * 3
                    let r = Double(frame.pixels[i]), g = Double(frame.pixels[i + 1]), b = Double(frame.pixels[i + 2])
                    y[row * w + col] = clamp(0.299 * r + 0.587 * g + 0.114 * b)
                    if row % 2 == 0 && col % 2 == 0 {
                        let j = (row / 2) * (w / 2) + col / 2
                        u[j] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)
                        v[j] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)
                    }
                }
            }
            out += y + u + v
        }
        return out
    }

    private static func clamp(_ x: Double) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }
}
