import Foundation
import PickerdBroker
import PickerdTestKit
import Testing

extension FailClosedRedactionTests {
    // MARK: TIFF and DNG

    @Test("a TIFF loses its GPS IFD and XMP location; its date and pixels stay, its length too")
    func tiffWithGPS() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/scan.tif"
        try tiff(path, tags: Self.paris + ["-DateTimeOriginal=2024:05:04 10:11:13", "-XMP:Title=Harbour"])
        #expect(try exiftoolTags(path)["GPS:GPSLatitude"] == "48.8584")
        let (bytes, out) = try redact(path, in: directory)
        #expect(bytes.count == (try read(path)).count)
        let after = try exiftoolTags(out)
        #expect(after["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(after["XMP-dc:Title"] == "Harbour")
        #expect(try pixels(out) == pixels(path))
        let validation = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-validate", "-warning", "-error", "-a", "-s", out])
        #expect(!validation.stdout.contains("Error"), "exiftool: \(validation.stdout)")
    }

    /// A two-page TIFF (ImageMagick) with GPS written by exiftool (which writes it in IFD0 only),
    /// then moved by hand to where no tool writes it: IFD1 (the next page), a SubIFD (IFD1 made
    /// IFD0's SubIFD, as a DNG holds its raw image), or the EXIF IFD. IFD0's own pointer becomes an
    /// unknown tag (0x8826), so only the moved pointer leads to the GPS IFD.
    @Test("a GPS IFD linked from IFD1, a SubIFD or the EXIF IFD is found and removed", arguments: ["IFD1", "SubIFD", "ExifIFD"])
    func gpsElsewhere(_ place: String) throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/pages-\(place).tif"
        try tiff(path, pages: ["gradient:red-blue", "gradient:green-yellow"], tags: Self.paris + ["-DateTimeOriginal=2024:05:04 10:11:13"])
        var file = try TIFFFile(read(path))
        let ifd0 = file.ifd0, ifd1 = file.next(ifd0)
        try #require(ifd1 != 0, "ImageMagick wrote one page")
        let pointer = try #require(file.entry(in: ifd0, tag: 0x8825))
        let gps = file.u32(pointer + 8)
        file.setTag(at: pointer, 0x8826)
        switch place {
        case "IFD1":
            file.setEntry(at: file.lastEntry(of: ifd1), tag: 0x8825, type: 4, count: 1, value: gps)
        case "SubIFD":
            let slot = try #require(file.entry(in: ifd0, tag: 0x013F), "no PrimaryChromaticities to make room")
            file.setEntry(at: slot, tag: 0x014A, type: 4, count: 1, value: ifd1)
            file.setNext(of: ifd0, 0)
            file.setEntry(at: file.lastEntry(of: ifd1), tag: 0x8825, type: 4, count: 1, value: gps)
        default:
            let exif = file.u32(try #require(file.entry(in: ifd0, tag: 0x8769)) + 8)
            file.setEntry(at: exif + 2, tag: 0x8825, type: 4, count: 1, value: gps)  // in ExifVersion's place
        }
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        let before = try exiftoolTags(path, ["-gps:all", "-SubIFD:all"])
        #expect(before["GPS:GPSLatitude"] == "48.8584", "exiftool does not see the moved GPS IFD: \(before)")
        try redact(path, in: directory)
    }

    /// A DNG: a two-page TIFF from ImageMagick made a DNG by exiftool (DNGVersion, UniqueCameraModel:
    /// exiftool then reads it as a DNG), its second page made IFD0's SubIFD by hand (a DNG's raw
    /// image lives in a SubIFD) and given a GPS pointer of its own beside IFD0's.
    @Test("a DNG (IFD0 preview, SubIFD image) loses GPS from both IFDs, and XMP location")
    func dng() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-dng")
        let path = directory.path + "/IMG_0001.DNG"
        try tiff(directory.path + "/IMG_0001.tif", pages: ["gradient:red-blue", "gradient:green-yellow"], tags: [])
        try FileManager.default.moveItem(atPath: directory.path + "/IMG_0001.tif", toPath: path)
        try tiff(path, pages: [],
                 tags: ["-DNGVersion=1.4.0.0", "-DNGBackwardVersion=1.1.0.0", "-UniqueCameraModel=Test Camera", "-Make=Test",
                        "-DateTimeOriginal=2024:05:04 10:11:13"] + Self.paris)
        var file = try TIFFFile(read(path))
        let ifd0 = file.ifd0, ifd1 = file.next(ifd0)
        let gps = file.u32(try #require(file.entry(in: ifd0, tag: 0x8825)) + 8)
        let slot = try #require(file.entry(in: ifd0, tag: 0x013F), "no PrimaryChromaticities to make room")
        file.setEntry(at: slot, tag: 0x014A, type: 4, count: 1, value: ifd1)
        file.setNext(of: ifd0, 0)
        file.setEntry(at: file.lastEntry(of: ifd1), tag: 0x8825, type: 4, count: 1, value: gps)
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        let before = try exiftoolTags(path, ["-FileType", "-DNGVersion", "-gps:all", "-SubIFD:all"])
        #expect(before["File:FileType"] == "DNG" && before["GPS:GPSLatitude"] == "48.8584", "\(before)")
        let (_, out) = try redact(path, in: directory)
        let after = try exiftoolTags(out, ["-FileType", "-DNGVersion", "-UniqueCameraModel", "-DateTimeOriginal", "-SubIFD:ImageWidth"])
        #expect(after["File:FileType"] == "DNG" && after["IFD0:DNGVersion"] == "1 4 0 0")
        #expect(after["IFD0:UniqueCameraModel"] == "Test Camera" && after["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(after["SubIFD:ImageWidth"] == "96", "the SubIFD is still read: \(after)")
    }

    @Test("a TIFF without GPS comes back byte for byte")
    func tiffWithoutGPS() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/plain.tif"
        try tiff(path, pages: ["gradient:red-blue", "gradient:green-yellow"], tags: ["-DateTimeOriginal=2024:05:04 10:11:13", "-XMP:Title=Harbour"])
        let original = try read(path)
        #expect(try ExifRedactor.strippingLocation(original) == original)
    }

    @Test("a truncated TIFF is refused, not passed on")
    func truncatedTIFF() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/cut.tif"
        try tiff(path, tags: Self.paris)
        let whole = try read(path)
        for cut in [whole.count - 1, whole.count * 2 / 3, whole.count / 3, 40, 9] {
            #expect(throws: ExifRedactor.Unreadable.self, "cut at \(cut) of \(whole.count)") {
                try ExifRedactor.strippingLocation(Array(whole[0..<cut]))
            }
        }
    }

    @Test("a TIFF whose IFDs link in a cycle is walked once; one with thousands of IFDs is refused")
    func tiffCycles() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/cycle.tif"
        try tiff(path, pages: ["gradient:red-blue", "gradient:green-yellow"], tags: Self.paris)
        var file = try TIFFFile(read(path))
        let ifd0 = file.ifd0
        file.setNext(of: file.next(ifd0), ifd0)  // IFD1 → IFD0 → IFD1 → …
        let redacted = try ExifRedactor.strippingLocation(file.bytes)
        #expect(traces(in: redacted).isEmpty)
        // 2,000 IFDs of no entries, each linking to the next.
        var chain: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0]
        for i in 0..<2000 {
            let next = i == 1999 ? 0 : 8 + (i + 1) * 6
            chain += [0, 0, UInt8(next & 0xFF), UInt8(next >> 8 & 0xFF), UInt8(next >> 16 & 0xFF), 0]
        }
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(chain) }
    }

}
