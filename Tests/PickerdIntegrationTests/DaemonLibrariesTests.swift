import Foundation
import PickerdTestKit
import Testing

/// Issue 28: pickerd links none of the parsing or decoding libraries. Its file reading is
/// pickerd-reader's (PickerdReaders, CMedia, CICal), and the module graph keeps it so; this reads the
/// built programs' `DT_NEEDED` entries, which is what the dynamic loader maps into each process.
@Suite("pickerd links no parser")
struct DaemonLibrariesTests {
    /// The libraries a built program names in its dynamic section (`readelf -d`'s `NEEDED` lines),
    /// such as `libexif.so.12`.
    static func needed(_ product: String) throws -> [String] {
        let path = BuiltProducts.url(product).path
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["readelf", "-d", path])
        #expect(result.status == 0, "readelf -d \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]"), open < close else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    /// Whether `library` is one of those that parse or decode a person's files: libexif, libheif
    /// and its decoder libde265, FFmpeg's libav* and libsw* (libswscale, libswresample: not the
    /// Swift runtime's libswift*), libical.
    static func isParser(_ library: String) -> Bool {
        ["libexif", "libheif", "libde265", "libav", "libical"].contains { library.hasPrefix($0) }
            || (library.hasPrefix("libsw") && !library.hasPrefix("libswift"))
    }

    @Test("pickerd's DT_NEEDED names no libexif, libheif, libde265, libav*, libsw* or libical; pickerd-reader's names libexif, libheif, libical and FFmpeg")
    func daemonNamesNoParser() throws {
        let daemon = try Self.needed("pickerd")
        #expect(daemon.contains { $0.hasPrefix("libc.so") }, "readelf found no NEEDED entry in pickerd: \(daemon)")
        #expect(daemon.filter(Self.isParser).isEmpty, "pickerd links \(daemon.filter(Self.isParser))")

        // The reader is where they went: the check above would catch them.
        let reader = try Self.needed("pickerd-reader")
        for library in ["libexif", "libheif", "libical", "libavformat", "libavcodec"] {
            #expect(reader.contains { $0.hasPrefix(library) && Self.isParser($0) }, "pickerd-reader does not name \(library): \(reader)")
        }
    }
}
