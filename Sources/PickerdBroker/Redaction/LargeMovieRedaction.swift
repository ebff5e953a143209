import Glibc
import PickerdTransport
import SystemPackage

/// A person's videos run to gigabytes, but a QuickTime or MP4 movie keeps its location in `moov`
/// (a few megabytes), never in the media data. So a large movie is redacted without reading its
/// `mdat`: its top-level boxes are listed with `pread`, every box but the media data is read into
/// one buffer laid out as a movie of its own (`ftyp`, `moov`, …), ``ExifRedactor`` redacts that, and
/// the bytes it changed are written over a streamed copy before it is sealed. Redaction never
/// changes a length, so each box's bytes go back where they came from.
///
/// Only for movies: a file with a top-level `meta` box (HEIF: its Exif item may sit in `mdat`) is
/// not one, and is redacted whole as before; so is anything this walk does not understand.
enum LargeMovieRedaction {
    /// Files this large or larger take this path.
    static let threshold = 16 << 20
    /// Top-level boxes left out of the buffer: media data and padding.
    static let skipped: Set<String> = ["mdat", "free", "skip", "wide"]

    /// A sealed, redacted copy of a large movie, or `nil` when `fd`'s file is not one (then the
    /// caller redacts the whole file in memory).
    /// - Parameters:
    ///   - fd: the file, open for reading at offset 0.
    ///   - name: the copy's label.
    /// - Throws: ``ExifRedactor/Unreadable`` when its boxes do not add up; transport errors.
    static func redactedCopy(of fd: FileDescriptor, name: String) throws -> OwnedFileDescriptor? {
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0, Int(info.st_size) >= threshold else { return nil }
        let size = Int(info.st_size)
        var boxes: [(offset: Int, length: Int, type: String)] = []
        var offset = 0
        while offset < size {
            let header = try read(fd, at: offset, count: min(16, size - offset))
            guard header.count >= 8 else { throw ExifRedactor.Unreadable(description: "a box header runs past the end") }
            var length = Int(UInt32(header[0]) << 24 | UInt32(header[1]) << 16 | UInt32(header[2]) << 8 | UInt32(header[3]))
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if length == 1 {
                guard header.count == 16 else { throw ExifRedactor.Unreadable(description: "a large box's size runs past the end") }
                length = header[8..<16].reduce(0) { $0 << 8 | Int($1) }
            } else if length == 0 {
                length = size - offset
            }
            guard length >= 8, offset + length <= size else { throw ExifRedactor.Unreadable(description: "the \(type) box runs past the end") }
            boxes.append((offset, length, type))
            offset += length
        }
        guard boxes.first.map({ $0.type == "ftyp" || $0.type == "moov" }) == true,
              boxes.contains(where: { $0.type == "moov" }), !boxes.contains(where: { $0.type == "meta" }) else { return nil }
        var kept: [(offset: Int, length: Int)] = []
        var buffer: [UInt8] = []
        for box in boxes where !skipped.contains(box.type) {
            kept.append((box.offset, box.length))
            buffer += try read(fd, at: box.offset, count: box.length)
        }
        let redacted = try ExifRedactor.strippingLocation(buffer)
        guard redacted.count == buffer.count else { throw ExifRedactor.Unreadable(description: "redaction changed the movie's length") }
        var patches: [(offset: Int, bytes: [UInt8])] = []
        var at = 0
        for box in kept {
            if !redacted[at..<(at + box.length)].elementsEqual(buffer[at..<(at + box.length)]) {
                patches.append((box.offset, Array(redacted[at..<(at + box.length)])))
            }
            at += box.length
        }
        guard lseek(fd.rawValue, 0, SEEK_SET) == 0 else { throw ExifRedactor.Unreadable(description: "cannot rewind the movie") }
        return try SealedMemoryFile.copy(from: fd, name: name, patches: patches)
    }

    private static func read(_ fd: FileDescriptor, at offset: Int, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd.rawValue, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ExifRedactor.Unreadable(description: "the movie ends early") }
            done += n
        }
        return bytes
    }
}
