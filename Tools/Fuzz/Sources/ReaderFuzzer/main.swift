// Coverage-guided fuzzing of the readers (issue 44): everything pickerd-reader parses of a person's
// files and exports, one reader per run, chosen by PICKERD_FUZZ_READER (`ReaderFuzzer --list` names
// them). One executable rather than one per reader, so one sanitizer build serves them all. Any input
// must end in what the reader read or its typed error (ImportError, ProbeError): a crash, a leak, an
// allocation past -rss_limit_mb or a run past -timeout is a finding. Readers that take a path read
// the input through ReaderFiles' overlay (the way pickerd-reader sees a descriptor pickerd passed),
// from one unlinked temporary file rewritten for each input; every other path is refused, as
// pickerd-reader's opener refuses what pickerd does not grant, so a fuzzed Apple Health export
// naming `/etc/passwd` as a route reads nothing. libFuzzer is driven through LLVMFuzzerRunDriver
// because SwiftPM gives an executable its own main.

import Foundation
import Glibc
import PickerdImport
@testable import PickerdReaders

/// One reader: the file name it sees (names matter: Spotify's histories and Takeout's Records.json
/// are told partly by name), and how it reads a file so named.
struct Reader: Sendable {
    var name: String
    var file: String
    var read: @Sendable (_ bytes: [UInt8], _ path: String) -> Void
}

enum Readers {
    /// The horizon calendars are expanded to: fixed, so a run does not depend on the day.
    static let now: Int64 = 1_767_225_600_000
    static let horizon = CalendarReader.horizon(library: nil, now: now)
    static let utc = TimeZone(identifier: "UTC")!

    /// An export reader as ExportReaders calls it for `kind` (detection skipped: the fuzzer's bytes
    /// go to this reader however their start mutates).
    static func export(_ kind: ExportKind) -> @Sendable (_ bytes: [UInt8], _ path: String) -> Void {
        { _, path in _ = try? ExportReaders.read(kind, path: path, name: (path as NSString).lastPathComponent, points: { _ in }, horizon: horizon) }
    }

    static let all: [Reader] = [
        Reader(name: "fit", file: "activity.fit") { bytes, path in _ = try? FITReader.read(bytes, file: path) },
        Reader(name: "tcx", file: "activity.tcx") { bytes, path in _ = try? TCXReader.read(bytes, file: path) },
        Reader(name: "gpx", file: "activity.gpx") { bytes, path in _ = try? GPXReader.read(bytes, file: path) },
        // A .gz of a workout file: bounded inflate, detection again, then its reader.
        Reader(name: "gzip", file: "activity.fit.gz", read: export(.gzip)),
        // A zip as pickerctl import reads one: unpacked in memory, each member detected and read (a
        // zip in it too, to the depth allowed), as the person's archive is.
        Reader(name: "zip", file: "export.zip") { _, path in
            _ = ExportImporter.read(file: path, name: "export.zip", nowMs: now, points: { _ in })
        },
        Reader(name: "takeout-sidecar", file: "IMG_0001.jpg.supplemental-metadata.json") { bytes, _ in _ = try? TakeoutSidecar.parse(bytes) },
        Reader(name: "spotify", file: "Streaming_History_Audio_2022_0.json", read: export(.spotify)),
        Reader(name: "records", file: "Records.json", read: export(.records)),
        Reader(name: "semantic", file: "2024_MAY.json", read: export(.semantic)),
        Reader(name: "timeline", file: "Timeline.json", read: export(.timeline)),
        Reader(name: "location-history", file: "location-history.json", read: export(.mapsHistory)),
        Reader(name: "owntracks", file: "2024-05.rec", read: export(.owntracks)),
        Reader(name: "listenbrainz", file: "listens.jsonl", read: export(.listenbrainz)),
        Reader(name: "lastfm", file: "scrobbles.csv", read: export(.lastfm)),
        Reader(name: "daylio", file: "daylio_export.csv", read: export(.daylio)),
        Reader(name: "vcard", file: "contacts.vcf", read: export(.vcard)),
        Reader(name: "ics", file: "calendar.ics", read: export(.ics)),
        Reader(name: "apple-health", file: "export.xml", read: export(.appleHealth)),
        // Photos and videos: the Swift walkers (JPEG segments, PNG and WebP chunks, TIFF IFDs,
        // CIFF, JPEG XL boxes, XMP people) and, under them, libexif, libheif, libjxl and FFmpeg
        // (Debian's, not instrumented: they add no coverage, but a crash in them is still seen).
        // The indexer's probe: a still's picture hashed too (its EXIF thumbnail, else the picture).
        Reader(name: "media", file: "photo") { _, path in _ = try? MediaProbe.probe(path: path, timeZone: utc, readPeople: true, hashPicture: true) },
        // XMP packets alone: the people a photo names (ExportXML under it).
        Reader(name: "xmp", file: "photo.xmp") { bytes, _ in
            if let packet = XMPPeople.packet(in: bytes) { _ = XMPPeople.names(inPacket: packet) }
            _ = XMPPeople.names(inPacket: bytes)
        },
    ]
}

/// The run's reader and its input's file, set once before the driver starts.
enum Run {
    nonisolated(unsafe) static var reader = Readers.all[0]
    nonisolated(unsafe) static var fd: Int32 = -1
    nonisolated(unsafe) static var path = ""
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    precondition(ftruncate(Run.fd, 0) == 0)
    var written = 0
    while written < size {
        let n = bytes.withUnsafeBytes { pwrite(Run.fd, $0.baseAddress! + written, size - written, off_t(written)) }
        precondition(n > 0, "cannot write the input")
        written += n
    }
    ReaderFiles.withOverlay([Run.path: Run.fd]) { Run.reader.read(bytes, Run.path) }
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>,
               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

if CommandLine.arguments.dropFirst().first == "--list" {
    for reader in Readers.all { print(reader.name, reader.file) }
    exit(0)
}
guard let chosen = ProcessInfo.processInfo.environment["PICKERD_FUZZ_READER"],
      let reader = Readers.all.first(where: { $0.name == chosen }) else {
    FileHandle.standardError.write(Data("ReaderFuzzer: set PICKERD_FUZZ_READER to one of: \(Readers.all.map(\.name).joined(separator: " "))\n".utf8))
    exit(2)
}
// Nothing but the input may be read.
ReaderFiles.install { _ in
    errno = ENOENT
    return nil
}
// The input's file: unlinked at once, rewritten for each input.
var template = Array("/tmp/pickerd-reader-fuzz.XXXXXX".utf8CString)
Run.fd = mkstemp(&template)
precondition(Run.fd >= 0, "cannot make the input's file")
unlink(template)
Run.reader = reader
Run.path = "/fuzz/" + reader.file

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runDriver(&argc, &argv, fuzzOne))
