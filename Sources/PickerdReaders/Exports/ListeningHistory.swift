import Foundation
import Glibc
import PickerdImport

extension String {
    /// The string without white space at either end: itself when there is none (the common case,
    /// and a hundred thousand times cheaper than asking Foundation).
    var trimmedEnds: String {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last,
              Self.isWhitespace(first) || Self.isWhitespace(last) else { return self }
        return trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Unicode's White_Space, ASCII's answered without the property tables (a play's every name
    /// is asked: a twentieth of reading a Spotify history).
    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
    }
}

/// Strings seen before, kept once: an export of 100 000 listens names a few thousand artists and
/// albums, and each listen shares its artist's and album's storage instead of holding a copy.
struct StringPool {
    private var seen: [String: String] = [:]

    /// `s`, or the equal string kept before.
    mutating func callAsFunction(_ s: String) -> String {
        if let kept = seen[s] { return kept }
        seen[s] = s
        return s
    }
}

/// An export file's lines, read in chunks (64 KiB) and handed over one at a time with their
/// number (1-based), without the line break (`\n` or `\r\n`): for JSON Lines.
/// - Parameters:
///   - path: the file.
///   - name: its name, for errors.
///   - body: called with each line (valid only during the call) and its number.
/// - Throws: ``ImportError`` naming the file (and line, for a line over 1 MiB or one `body` refuses).
func forEachLine(path: String, name: String, _ body: (ArraySlice<UInt8>, Int) throws(ImportError) -> Void) throws(ImportError) {
    let fd = try openForReading(path)
    defer { close(fd) }
    var source = ChunkSource(fd: fd)
    var line: [UInt8] = []
    var number = 0
    func handle(_ bytes: ArraySlice<UInt8>) throws(ImportError) {
        number += 1
        try body(bytes.last == 0x0D ? bytes.dropLast() : bytes, number)
    }
    do {
        while try source.fill() {
            let chunk = UnsafeBufferPointer(start: source.storage.pointer, count: source.count)
            var from = 0
            while let nl = chunk[from...].firstIndex(of: 0x0A) {
                if line.isEmpty {
                    // The whole line is in this chunk: no copy into `line` first.
                    try handle(ArraySlice(chunk[from..<nl]))
                } else {
                    line.append(contentsOf: chunk[from..<nl])
                    try handle(line[...])
                    line.removeAll(keepingCapacity: true)
                }
                from = nl + 1
            }
            line.append(contentsOf: chunk[from...])
            guard line.count <= 1 << 20 else { throw ImportError(file: name, location: "line \(number + 1)", "a line longer than 1 MiB") }
        }
    } catch let e as JSONError {
        throw ImportError(file: name, e.message)
    } catch let e as ImportError {
        throw e
    } catch {
        throw ImportError(file: name, "\(error)")
    }
    if !line.isEmpty { try handle(line[...]) }
}

/// RFC 4180 CSV records read in chunks from a file (or from bytes in memory), one record at a time
/// with the line it starts on: a quoted field may hold commas, doubled quotes and line breaks (a
/// Daylio note over several lines is one field). A UTF-8 byte-order mark is skipped, `\r\n` is a
/// line break, and blank lines are no records.
struct CSVRecords {
    private var source: ChunkSource
    private var pos = 0
    private var started = false
    /// The file's name, for errors.
    let file: String
    /// The line (1-based) the next byte is on.
    private(set) var line = 1
    /// The most bytes one record may hold before the file is refused.
    static let maximumRecord = 1 << 20

    /// Records of the file open at `fd` (not owned: whoever opened it closes it).
    init(fd: Int32, file: String) {
        source = ChunkSource(fd: fd)
        self.file = file
    }

    /// Records of bytes in memory (the first bytes of a file, when telling its kind).
    init(bytes: some Collection<UInt8>, file: String = "") {
        source = ChunkSource(bytes: bytes)
        self.file = file
    }

    private mutating func nextByte() throws(ImportError) -> UInt8? {
        if pos >= source.count {
            do {
                guard try source.fill() else { return nil }
            } catch { throw ImportError(file: file, error.message) }
            pos = 0
        }
        defer { pos += 1 }
        return source.storage.pointer[pos]
    }

    /// The next record.
    /// - Returns: its fields and the line it starts on; nil at the end of the file.
    /// - Throws: ``ImportError`` naming the line: a quoted field still open at the end of the file
    ///   (the file is truncated), a record over ``maximumRecord`` bytes, an unreadable file.
    mutating func next() throws(ImportError) -> (fields: [String], line: Int)? {
        if !started {
            started = true
            // A byte-order mark, as spreadsheet programs write one (looked at, not consumed, first).
            if try nextByte() != nil {
                pos -= 1
                let p = source.storage.pointer
                if source.count - pos >= 3, p[pos] == 0xEF, p[pos + 1] == 0xBB, p[pos + 2] == 0xBF { pos += 3 }
            }
        }
        while true {
            let start = line
            var fields: [String] = [], field: [UInt8] = []
            var quoted = false, closedQuote = false, size = 0
            var byte = try nextByte()
            guard byte != nil else { return nil }
            while let b = byte {
                size += 1
                guard size <= Self.maximumRecord else {
                    throw ImportError(file: file, location: "line \(start)", "a record longer than \(Self.maximumRecord >> 20) MiB")
                }
                if quoted {
                    if b == UInt8(ascii: "\"") {
                        quoted = false
                        closedQuote = true
                    } else {
                        if b == 0x0A { line += 1 }
                        field.append(b)
                    }
                } else if b == UInt8(ascii: "\"") {
                    // `""` inside a quoted field is a quote; a quote opening a field starts quoting.
                    if closedQuote { field.append(b) }
                    quoted = true
                    closedQuote = false
                } else if b == UInt8(ascii: ",") {
                    fields.append(String(decoding: field, as: UTF8.self))
                    field.removeAll(keepingCapacity: true)
                    closedQuote = false
                } else if b == 0x0A {
                    line += 1
                    break
                } else if b != 0x0D {
                    field.append(b)
                    closedQuote = false
                }
                byte = try nextByte()
            }
            if quoted {
                throw ImportError(file: file, location: "line \(start)", "a quoted field runs to the end of the file (the file is truncated)")
            }
            fields.append(String(decoding: field, as: UTF8.self))
            if fields.count == 1, fields[0].allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            return (fields, start)
        }
    }

    /// Every record of `path`, handed to `body` one at a time.
    /// - Throws: ``ImportError`` from the file or from `body`.
    static func forEach(path: String, name: String, _ body: ([String], Int) throws(ImportError) -> Void) throws(ImportError) {
        let fd = try openForReading(path)
        defer { close(fd) }
        var records = CSVRecords(fd: fd, file: name)
        while let (fields, line) = try records.next() { try body(fields, line) }
    }
}

extension ExportKind {
    /// A CSV by its header or its shape: Daylio's header (`full_date,…`), a Last.fm export's header
    /// (`uts,utc_time,artist,…,track,…`, or lastfm-to-csv's `artist,album,name,date`), or
    /// lastfm-to-csv's headerless rows (four fields, the last a Last.fm date: `31 Jan 2021 12:34`;
    /// a track playing while the export ran has an empty date, so the next row may decide).
    static func listeningCSV(_ body: ArraySlice<UInt8>) -> ExportKind? {
        var records = CSVRecords(bytes: body)
        guard let first = try? records.next()?.fields else { return nil }
        let header = first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if header.first == "full_date" { return .daylio }
        if LastFMExport.Layout(header: header) != nil { return .lastfm }
        var row = first
        for _ in 0..<2 {
            guard row.count == 4 else { return nil }
            if !row[3].isEmpty { return LastFMExport.milliseconds(lastFM: row[3]) != nil ? .lastfm : nil }
            guard let next = try? records.next()?.fields else { return nil }
            row = next
        }
        return nil
    }
}
