import PickerdChecksum

/// A PNG encoder (8-bit RGB, no interlace) with an optional `eXIf` chunk.
///
/// The image data is a zlib stream of *stored* deflate blocks: valid for every PNG reader, needs no
/// compression library, and the demo's pictures are small.
package enum PNG {
    package static func encode(_ raster: Raster, exif: [UInt8]? = nil) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += bigEndian(UInt32(raster.width))
        header += bigEndian(UInt32(raster.height))
        header += [8, 2, 0, 0, 0]  // bit depth 8, colour type RGB, deflate, adaptive filtering, no interlace
        chunk("IHDR", header, into: &out)
        if let exif { chunk("eXIf", exif, into: &out) }  // must precede IDAT
        var scanlines: [UInt8] = []
        scanlines.reserveCapacity(raster.height * (raster.width * 3 + 1))
        for y in 0..<raster.height {
            scanlines.append(0)  // filter: none
            scanlines += raster.pixels[(y * raster.width * 3)..<((y + 1) * raster.width * 3)]
        }
        chunk("IDAT", zlibStored(scanlines), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    private static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += bigEndian(UInt32(data.count))
        out += typeBytes
        out += data
        out += bigEndian(CRC32.checksum(typeBytes + data))
    }

    /// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951 §3.2.4).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        out += bigEndian(b << 16 | a)
        return out
    }
}

package func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
}

package func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
