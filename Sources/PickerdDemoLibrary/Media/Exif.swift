/// EXIF metadata (a big-endian TIFF structure) for the demo's photos: the capture date, and GPS
/// coordinates where the photo was taken at a known place.
package enum Exif {
    /// Where a picture was taken.
    package struct GPS: Sendable, Hashable {
        package var latitude: Double
        package var longitude: Double

        package init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    private struct Entry {
        var tag: UInt16
        var type: UInt16   // 1 BYTE, 2 ASCII, 4 LONG, 5 RATIONAL
        var count: UInt32
        var data: [UInt8]  // the value's bytes, big-endian
    }

    /// The EXIF block for an `eXIf` PNG chunk (or an APP1 segment after its "Exif\0\0" header).
    /// - Parameters:
    ///   - dateTimeOriginal: "YYYY:MM:DD HH:MM:SS".
    ///   - gps: where the picture was taken, if known.
    package static func make(dateTimeOriginal: String, gps: GPS?) -> [UInt8] {
        let date = Array(dateTimeOriginal.utf8.prefix(19)) + [0]
        let exifIFD = [Entry(tag: 0x9003, type: 2, count: UInt32(date.count), data: date)]
        var gpsIFD: [Entry] = []
        if let gps {
            gpsIFD = [
                Entry(tag: 0x0000, type: 1, count: 4, data: [2, 3, 0, 0]),
                Entry(tag: 0x0001, type: 2, count: 2, data: [gps.latitude >= 0 ? 0x4E : 0x53, 0]),   // N / S
                Entry(tag: 0x0002, type: 5, count: 3, data: rationals(abs(gps.latitude))),
                Entry(tag: 0x0003, type: 2, count: 2, data: [gps.longitude >= 0 ? 0x45 : 0x57, 0]),  // E / W
                Entry(tag: 0x0004, type: 5, count: 3, data: rationals(abs(gps.longitude))),
            ]
        }
        // Layout: header, IFD0, Exif IFD, GPS IFD, then the out-of-line values of each.
        func ifdSize(_ entries: [Entry]) -> Int { 2 + entries.count * 12 + 4 }
        let ifd0Count = gps == nil ? 1 : 2
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + 2 + ifd0Count * 12 + 4
        let gpsOffset = exifOffset + ifdSize(exifIFD)
        var dataOffset = gpsOffset + (gps == nil ? 0 : ifdSize(gpsIFD))

        var out: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + bigEndian(UInt32(ifd0Offset))
        var ifd0 = [Entry(tag: 0x8769, type: 4, count: 1, data: bigEndian(UInt32(exifOffset)))]
        if gps != nil { ifd0.append(Entry(tag: 0x8825, type: 4, count: 1, data: bigEndian(UInt32(gpsOffset)))) }

        var trailing: [UInt8] = []
        func write(_ entries: [Entry]) {
            out += bigEndian(UInt16(entries.count))
            for e in entries {
                out += bigEndian(e.tag) + bigEndian(e.type) + bigEndian(e.count)
                if e.data.count <= 4 {
                    out += e.data + [UInt8](repeating: 0, count: 4 - e.data.count)
                } else {
                    out += bigEndian(UInt32(dataOffset))
                    trailing += e.data
                    dataOffset += e.data.count
                    if e.data.count % 2 == 1 { trailing.append(0); dataOffset += 1 }
                }
            }
            out += bigEndian(UInt32(0))  // no next IFD
        }
        write(ifd0)
        write(exifIFD)
        if gps != nil { write(gpsIFD) }
        return out + trailing
    }

    /// Degrees as three TIFF rationals: degrees, minutes, seconds (1/1000 s).
    private static func rationals(_ value: Double) -> [UInt8] {
        let degrees = UInt32(value)
        let minutesFull = (value - Double(degrees)) * 60
        let minutes = UInt32(minutesFull)
        let milliseconds = UInt32(((minutesFull - Double(minutes)) * 60 * 1000).rounded())
        return bigEndian(degrees) + bigEndian(UInt32(1)) + bigEndian(minutes) + bigEndian(UInt32(1))
            + bigEndian(milliseconds) + bigEndian(UInt32(1000))
    }
}
