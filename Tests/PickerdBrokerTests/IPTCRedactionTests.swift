import Foundation
import PickerdBroker
import PickerdTestKit
import Testing

/// A JPEG's APP13 (Photoshop's image resources: IPTC-IIM, Photoshop's copy of XMP) loses its place
/// names when the place was not kept, as APP1's EXIF and XMP do.
@Suite("IPTC-IIM redaction")
struct IPTCRedactionTests {
    /// exiftool's IPTC and XMP tags of `bytes`, as `Group:Tag: value` lines.
    func tags(_ bytes: [UInt8]) throws -> String {
        let directory = try TemporaryDirectory(prefix: "pkd-iptc")
        let path = directory.path + "/photo.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-a", "-G1", "-s", "-IPTC:all", "-XMP:all", "-Photoshop:all", path]).stdout
    }

    @Test("exiftool's IPTC City, Sub-location, Province-State and Country are blanked in place; the caption stays; the file keeps its length")
    func iim() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-iptc-make")
        let path = directory.path + "/IMG_0001.JPG"
        try MediaFixtures.jpeg(at: path, exif: .init(dateTimeOriginal: "2024:05:04 10:00:00"))
        try MediaFixtures.writeTags(["-IPTC:Sub-location=Jardim do Torel", "-IPTC:City=Lisboa", "-IPTC:Province-State=Lisboa",
                                     "-IPTC:Country-PrimaryLocationName=Portugal", "-IPTC:Caption-Abstract=A quiet morning"], to: path)
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let before = try tags(original)
        #expect(before.contains("Jardim do Torel") && before.contains("Portugal"), "\(before)")
        let stripped = try ExifRedactor.strippingLocation(original)
        let after = try tags(stripped)
        #expect(!after.contains("Torel") && !after.contains("Lisboa") && !after.contains("Portugal"), "\(after)")
        #expect(after.contains("A quiet morning"), "\(after)")
        #expect(stripped.count == original.count)
        #expect(Data(stripped).range(of: Data("Torel".utf8)) == nil)
    }

    @Test("an APP13 whose resource runs past its segment is refused, not passed on")
    func broken() throws {
        // "Photoshop 3.0\0", an 8BIM 0x0404 block claiming 4,000 bytes, 12 given.
        let resources = Array("Photoshop 3.0".utf8) + [0] + Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0x0F, 0xA0]
            + [0x1C, 2, 90, 0, 6] + Array("Lisboa".utf8) + [0]
        let length = resources.count + 2
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xED, UInt8(length >> 8), UInt8(length & 0xFF)] + resources + [0xFF, 0xD9]
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(jpeg) }
    }

    @Test("a TIFF's IPTC-IIM (tag 33723, as exiftool writes it) loses its place names, its caption stays; so does a DNG-style big-endian TIFF's Photoshop resources (tag 34377)")
    func tiff() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-iptc-tiff")
        let path = directory.path + "/scan.tif"
        try MediaFixtures.run("convert", ["-size", "96x64", "gradient:red-blue", path])
        try MediaFixtures.writeTags(["-IPTC:Sub-location=Jardim do Torel", "-IPTC:City=Lisboa", "-IPTC:Country-PrimaryLocationName=Portugal",
                                     "-IPTC:Caption-Abstract=A quiet morning", "-DateTimeOriginal=2024:05:04 10:00:00"], to: path)
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Data(original).range(of: Data("Torel".utf8)) != nil)
        let stripped = try ExifRedactor.strippingLocation(original)
        let out = directory.path + "/redacted.tif"
        try Data(stripped).write(to: URL(fileURLWithPath: out))
        let after = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-a", "-G1", "-s", "-IPTC:all", "-ExifIFD:DateTimeOriginal", out]).stdout
        #expect(!after.contains("Torel") && !after.contains("Lisboa") && !after.contains("Portugal"), "\(after)")
        #expect(after.contains("A quiet morning") && after.contains("2024:05:04 10:00:00"), "\(after)")
        #expect(stripped.count == original.count)
        #expect(Data(stripped).range(of: Data("Torel".utf8)) == nil)

        // Photoshop keeps a TIFF's IPTC in its image resources: IFD0's one entry points at an 8BIM
        // 0x0404 block (written here byte by byte: no tool writes only that).
        var record: [UInt8] = []
        for (dataset, text) in [(92, "Govetts Leap"), (90, "Blackheath"), (120, "A cold lookout")] {
            record += [0x1C, 2, UInt8(dataset), 0, UInt8(text.utf8.count)] + Array(text.utf8)
        }
        let resources = Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, UInt8(record.count)] + record + (record.count % 2 == 1 ? [0] : [])
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1,
                             0x86, 0x49, 0, 7, 0, 0, 0, UInt8(resources.count), 0, 0, 0, 26, 0, 0, 0, 0] + resources
        let blanked = try ExifRedactor.strippingLocation(tiff)
        #expect(Data(blanked).range(of: Data("Govetts".utf8)) == nil && Data(blanked).range(of: Data("Blackheath".utf8)) == nil)
        #expect(Data(blanked).range(of: Data("A cold lookout".utf8)) != nil, "the caption stays")
        #expect(blanked.count == tiff.count)
        // Resources that run past their tag's value are refused: released less, not more.
        var broken = tiff
        broken[34] = 0xFF  // the block's size, far past its end
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(broken) }
    }
}
