import Foundation
import Glibc
import CMedia
import PickerdMoments
import PickerdImport
import Synchronization

/// Reads a zip archive (Strava's and Garmin's bulk exports, Takeout's downloads, Apple Health's
/// `export.zip`) as a folder, without writing a file anywhere: its entries are seen through
/// ``ReaderFiles/withOverlay(_:streams:_:)`` and read from the archive when a reader reads them,
/// a stream inflated as it is read (``ReaderFiles/openStream(_:)``), or a file unpacked whole into
/// a sealed memfd when a reader opens it (``ReaderFiles/open(_:)``), closed when it is done. So
/// an archive of thousands of files (an Apple Health export's routes, a Strava export's
/// activities) holds one descriptor, the archive's, and memory for one entry at a time.
///
/// Stored and deflated entries are read; everything is bounded. When the archive is opened, every
/// entry up to ``streamedEntry`` is inflated and checked (size, checksum), then let go: an entry
/// may not inflate past ``maximumEntry``, those entries together past ``maximumTotal``, nor any
/// past ``maximumRatio`` times its compressed size (a zip bomb stops at the first entry that
/// tries), and a damaged entry refuses the archive, as before anything of it is read. An entry
/// larger than that, and any `export.xml` (Apple Health's, hundreds of MB to several GB, whose
/// reader streams it whatever its size), is held to ``maximumRatio`` and ``maximumStreamed`` when
/// the archive is opened and checked as it is streamed, never past its declared size, its size and
/// checksum at its end; a reader that wants it whole gets it
/// unpacked, bounded as any entry (``maximumEntry``). Names with `..` or an absolute path are
/// refused. ZIP64 archives (over 4 GB, or an entry over 4 GB, as a large export's `export.xml`)
/// are read.
enum ZipArchive {
    /// The most one entry may inflate to when unpacked whole.
    static let maximumEntry = 512 << 20
    /// The most the archive's entries unpacked up front may inflate to together.
    static let maximumTotal = 2 << 30
    /// The most an entry unpacked whole may inflate relative to its compressed size.
    static let maximumRatio = 200
    /// Entries that inflate to more than this are streamed, not unpacked up front.
    static let streamedEntry = 64 << 20
    /// The most one streamed entry may inflate to (its reader's CPU time bounds it too).
    static let maximumStreamed: Int64 = 32 << 30

    /// Bytes inflated from streamed entries in this process: what a reader tells pickerd as it goes
    /// (``FileReaderService``), whose time allowance for the file grows with them.
    static let streamedBytes = Atomic<Int64>(0)

    /// Where an entry's data is, as its central directory and local header say.
    struct Entry: Sendable {
        /// Its path in the archive (parts joined by single slashes).
        var name: String
        /// 0 (stored) or 8 (deflated).
        var method: UInt16
        /// Its CRC-32.
        var crc: UInt32
        /// Its data's size in the archive.
        var compressed: Int64
        /// Its size once inflated, as declared.
        var uncompressed: Int64
        /// Where its data starts in the archive.
        var dataStart: Int64
    }

    /// An entry left in the archive, read when a reader reads it: the archive's descriptor (kept
    /// open by ``Unpacked``'s owner) and where the entry is.
    struct StreamedMember: Sendable {
        /// The archive, read with `pread` (its offset is never moved).
        var archive: Int32
        /// The archive's name, for errors.
        var archiveName: String
        /// The entry.
        var entry: Entry
        /// Whether it was inflated and checked when the archive was opened (an entry up to
        /// ``ZipArchive/streamedEntry``); otherwise it is checked as a stream reads it to its end.
        var checked: Bool
    }

    /// An archive opened to be read as a folder: its entries, and its descriptor they are read from.
    struct Unpacked {
        /// Its file entries, in the archive's order.
        var members: [StreamedMember]
        /// The archive's descriptor the entries are read from; ``close()`` closes it.
        var archive: Int32

        /// Closes the archive.
        func close() { Glibc.close(archive) }
    }

    /// Opens `path` (through ``ReaderFiles``) to be read as a folder: its entries listed, and those
    /// up to ``streamedEntry`` inflated and checked, then let go (each is unpacked again, into a
    /// sealed memfd, when a reader opens it). Bounds: ``maximumEntry``, ``maximumTotal``,
    /// ``maximumRatio``, ``maximumStreamed``.
    /// - Returns: the entries; the caller closes the archive (``Unpacked/close()``) once done reading.
    /// - Throws: ``ImportError`` naming the archive and the entry.
    static func unpack(path: String, name: String) throws(ImportError) -> Unpacked {
        guard let handle = ReaderFiles.open(path) else { throw ImportError(file: name, "cannot be read") }
        var unpacked = Unpacked(members: [], archive: handle)
        do throws(ImportError) {
            var total = 0
            for entry in try entries(handle, name: name) {
                if entry.uncompressed > Int64(streamedEntry) || entry.name.split(separator: "/").last == "export.xml" {
                    guard entry.uncompressed <= maximumStreamed else {
                        throw ImportError(file: name, location: entry.name,
                                          "an entry of \(entry.uncompressed >> 30) GiB is larger than pickerd reads (\(maximumStreamed >> 30) GiB)")
                    }
                    // Its stream stops at its declared size: a bomb is refused by its ratio before it expands
                    // (Apple Health's XML deflates 10 to 30 times).
                    guard entry.uncompressed <= max(entry.compressed, 1) * Int64(maximumRatio) else {
                        throw ImportError(file: name, location: entry.name, "an entry that would expand to \(entry.uncompressed >> 20) MiB was refused (a zip bomb?)")
                    }
                    unpacked.members.append(StreamedMember(archive: handle, archiveName: name, entry: entry, checked: false))
                    continue
                }
                guard total + Int(entry.uncompressed) <= maximumTotal else {
                    throw ImportError(file: name, location: entry.name, "the archive would expand past \(maximumTotal >> 20) MiB (a zip bomb?)")
                }
                total += try whole(entry, archive: handle, name: name).count
                unpacked.members.append(StreamedMember(archive: handle, archiveName: name, entry: entry, checked: true))
            }
        } catch {
            unpacked.close()
            throw error
        }
        return unpacked
    }

    /// An entry unpacked whole into a sealed memfd, for a reader that opens it as a file: bounded as
    /// any entry (``maximumEntry``, ``maximumRatio``).
    /// - Returns: the descriptor (the caller closes it), or `nil` with `errno` set (`EFBIG` when it
    ///   is too large, `EIO` when it is corrupt).
    static func memoryFile(_ member: StreamedMember) -> Int32? {
        guard let bytes = try? whole(member.entry, archive: member.archive, name: member.archiveName) else {
            errno = member.entry.uncompressed > Int64(maximumEntry) ? EFBIG : EIO
            return nil
        }
        return ReaderFiles.memoryFile(member.entry.name, bytes)
    }

    /// The file entries of the archive open at `handle`, checked: names inside the archive,
    /// stored or deflated, data within the archive. Folders are left out.
    private static func entries(_ handle: Int32, name: String) throws(ImportError) -> [Entry] {
        let size = Int64(ReaderFiles.size(of: handle) ?? 0)
        // The end of central directory record: 22 bytes, within the last 64 KiB (its comment).
        let tailStart = max(0, size - 65_557)
        let tail = try read(handle, at: tailStart, count: Int(size - tailStart), name: name)
        guard let eocd = stride(from: tail.count - 22, through: 0, by: -1).first(where: { le32(tail, $0) == 0x0605_4B50 }) else {
            throw ImportError(file: name, "not a zip archive (no end of central directory)")
        }
        var entryCount = Int64(le16(tail, eocd + 10))
        var directorySize = Int64(le32(tail, eocd + 12)), directoryOffset = Int64(le32(tail, eocd + 16))
        if directoryOffset == 0xFFFF_FFFF || entryCount == 0xFFFF || directorySize == 0xFFFF_FFFF {
            // ZIP64: a locator (20 bytes) just before the record points at the ZIP64 end of central directory.
            guard eocd >= 20, le32(tail, eocd - 20) == 0x0706_4B50 else {
                throw ImportError(file: name, "a ZIP64 archive without its end of central directory locator")
            }
            let recordOffset = le64(tail, eocd - 20 + 8)
            guard recordOffset >= 0, recordOffset <= size - 56 else { throw ImportError(file: name, "its ZIP64 end of central directory runs past the end") }
            let record = try read(handle, at: recordOffset, count: 56, name: name)
            guard le32(record, 0) == 0x0606_4B50 else { throw ImportError(file: name, "its ZIP64 end of central directory is missing") }
            entryCount = le64(record, 32)
            directorySize = le64(record, 40)
            directoryOffset = le64(record, 48)
        }
        // Each bound is checked as a subtraction: ZIP64's 64-bit offsets and sizes may be anything up to
        // Int64.max, and their sum would overflow (a fuzzed archive did).
        guard directoryOffset >= 0, directorySize >= 0, directorySize <= 256 << 20, directoryOffset <= size - directorySize else {
            throw ImportError(file: name, "the central directory runs past the end")
        }
        let central = try read(handle, at: directoryOffset, count: Int(directorySize), name: name)
        var offset = 0
        var entries: [Entry] = []
        for index in 0..<max(entryCount, 0) {
            guard offset + 46 <= central.count, le32(central, offset) == 0x0201_4B50 else {
                throw ImportError(file: name, location: "entry \(index)", "the central directory is broken")
            }
            let method = le16(central, offset + 10), crc = le32(central, offset + 16)
            var compressed = Int64(le32(central, offset + 20)), uncompressed = Int64(le32(central, offset + 24))
            let nameLength = Int(le16(central, offset + 28)), extraLength = Int(le16(central, offset + 30))
            let commentLength = Int(le16(central, offset + 32))
            var local = Int64(le32(central, offset + 42))
            guard offset + 46 + nameLength + extraLength <= central.count else {
                throw ImportError(file: name, location: "entry \(index)", "its name runs past the end")
            }
            let entryName = String(decoding: central[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self)
            // ZIP64's extra field (0x0001) holds, in this order, each of these that is 0xFFFFFFFF above.
            var extra = offset + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let tag = le16(central, extra), length = Int(le16(central, extra + 2))
                guard extra + 4 + length <= extraEnd else { break }
                if tag == 0x0001 {
                    var field = extra + 4
                    func next() throws(ImportError) -> Int64 {
                        guard field + 8 <= extra + 4 + length else {
                            throw ImportError(file: name, location: entryName, "its ZIP64 sizes are cut short")
                        }
                        defer { field += 8 }
                        return le64(central, field)
                    }
                    if uncompressed == 0xFFFF_FFFF { uncompressed = try next() }
                    if compressed == 0xFFFF_FFFF { compressed = try next() }
                    if local == 0xFFFF_FFFF { local = try next() }
                }
                extra += 4 + length
            }
            offset = extraEnd + commentLength
            if entryName.hasSuffix("/") { continue }  // a folder
            let parts = entryName.split(separator: "/")
            guard !entryName.hasPrefix("/"), !parts.contains(".."), !parts.isEmpty else {
                throw ImportError(file: name, location: entryName, "an entry whose name leaves the archive's folder")
            }
            guard method == 0 || method == 8 else {
                throw ImportError(file: name, location: entryName, "compression method \(method) is not read (only stored and deflated)")
            }
            guard compressed >= 0, uncompressed >= 0, local >= 0, local <= size - 30 else {
                throw ImportError(file: name, location: entryName, "its local header is missing")
            }
            let header = try read(handle, at: local, count: 30, name: name)
            guard le32(header, 0) == 0x0403_4B50 else { throw ImportError(file: name, location: entryName, "its local header is missing") }
            let dataStart = local + 30 + Int64(le16(header, 26)) + Int64(le16(header, 28))
            guard compressed <= size - dataStart else { throw ImportError(file: name, location: entryName, "its data runs past the end") }
            if method == 0, compressed != uncompressed {
                throw ImportError(file: name, location: entryName, "a stored entry whose sizes differ")
            }
            entries.append(Entry(name: parts.joined(separator: "/"), method: method, crc: crc, compressed: compressed,
                                 uncompressed: uncompressed, dataStart: dataStart))
        }
        return entries
    }

    /// An entry's bytes, inflated whole and checked (size, checksum), within ``maximumEntry`` and
    /// ``maximumRatio``.
    private static func whole(_ entry: Entry, archive: Int32, name: String) throws(ImportError) -> [UInt8] {
        guard entry.uncompressed <= Int64(maximumEntry), entry.uncompressed <= max(entry.compressed, 1) * Int64(maximumRatio) else {
            throw ImportError(file: name, location: entry.name, "an entry that would expand to \(entry.uncompressed >> 20) MiB was refused (a zip bomb?)")
        }
        let data = try read(archive, at: entry.dataStart, count: Int(entry.compressed), name: name)
        let bytes: [UInt8]
        if entry.method == 0 {
            bytes = data
        } else {
            bytes = try inflate(data, limit: Int(entry.uncompressed), name: name, entry: entry.name)
        }
        let crc = bytes.withUnsafeBufferPointer { pm_crc32(0, $0.baseAddress, $0.count) }
        guard bytes.count == Int(entry.uncompressed), crc == entry.crc else {
            throw ImportError(file: name, location: entry.name, "its data does not match its checksum")
        }
        return bytes
    }

    private static func inflate(_ data: [UInt8], limit: Int, name: String, entry: String) throws(ImportError) -> [UInt8] {
        // An empty entry (Python's zipfile deflates one to the 2 bytes `03 00`) inflates to nothing;
        // the inflater's bound is exclusive of a zero-byte buffer, so it gets one byte of room, and
        // the caller's size and checksum check still holds it to its header's 0.
        switch BoundedInflate.run(data, raw: true, limit: max(limit, 1)) {
        case .inflated(let bytes): return bytes
        case .tooLarge: throw ImportError(file: name, location: entry, "expands past what its header says (a zip bomb?)")
        case .noMemory(let at), .corrupt(let at): throw ImportError(file: name, location: entry, "corrupt deflated data at byte \(at)")
        }
    }

    private static func read(_ handle: Int32, at offset: Int64, count: Int, name: String) throws(ImportError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        if let failure = bytes.withUnsafeMutableBytes({ read(handle, into: $0.baseAddress!, count: count, at: offset) }) {
            throw ImportError(file: name, location: "byte \(offset)", failure)
        }
        return bytes
    }

    /// Reads exactly `count` bytes of the archive at `offset` into `buffer` (`pread`, again after
    /// EINTR): the central directory's, a header's, an entry's data whole or streamed.
    /// - Returns: `nil`, or why it could not (an error, or the archive ending first).
    fileprivate static func read(_ handle: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> String? {
        var done = 0
        while done < count {
            let n = pread(handle, buffer + done, count - done, off_t(offset + Int64(done)))
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return "cannot be read: \(String(cString: strerror(errno)))" }
            guard n > 0 else { return "the archive ends early" }
            done += n
        }
        return nil
    }

    private static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
    /// A little-endian 64-bit field; one past `Int64.max` reads as −1, which every caller refuses.
    private static func le64(_ b: [UInt8], _ i: Int) -> Int64 {
        let value = UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32
        return value > UInt64(Int64.max) ? -1 : Int64(value)
    }
}

/// A streamed zip entry's bytes, inflated as they are read (``ZipArchive/StreamedMember``): the
/// archive is read 256 KiB at a time with `pread`, zlib inflates into the caller's buffer, and the
/// CRC-32 is kept as the bytes go. Memory: the input buffer and zlib's window, whatever the entry's
/// size. At the entry's end its size and checksum must be what its header says; an entry that
/// inflates past its declared size (or ``ZipArchive/maximumStreamed``), or whose data ends early, is
/// an error there.
final class ZipMemberStream {
    private let member: ZipArchive.StreamedMember
    private var inflater: OpaquePointer?
    private let input: UnsafeMutableRawBufferPointer
    private var inputStart = 0, inputEnd = 0
    /// The next byte of the entry's data to read from the archive, relative to its start.
    private var taken: Int64 = 0
    private var produced: Int64 = 0
    private var crc: UInt32 = 0
    private var ended = false
    /// The entry inflated past its declared size: what fitted was returned, the next read throws.
    private var overrun = false

    /// Opens a streamed member for reading.
    /// - Throws: a message when zlib cannot be set up.
    init(_ member: ZipArchive.StreamedMember) throws(ReaderFiles.StreamFailure) {
        self.member = member
        input = .allocate(byteCount: 256 << 10, alignment: 16)
        if member.entry.method == 8 {
            guard let inflater = pm_inflater_new() else {
                input.deallocate()
                throw ReaderFiles.StreamFailure("out of memory for its inflater")
            }
            self.inflater = inflater
        }
    }

    deinit {
        pm_inflater_free(inflater)
        input.deallocate()
    }

    private var entry: ZipArchive.Entry { member.entry }

    /// Reads up to `count` bytes into `buffer`; 0 at the entry's end (once checked).
    /// - Throws: why the entry cannot be read on (corrupt, too large, its checksum wrong).
    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(ReaderFiles.StreamFailure) -> Int {
        if overrun {
            throw ReaderFiles.StreamFailure("expands past what its header says (\(entry.uncompressed) bytes; a zip bomb?)")
        }
        guard !ended, count > 0 else { return 0 }
        if entry.method == 0 {
            let want = Int(min(Int64(count), entry.uncompressed - produced))
            if want == 0 { try finish(); return 0 }
            let n = try pread(into: buffer, count: want)
            account(buffer, n)
            return n
        }
        while true {
            if inputStart == inputEnd, taken < entry.compressed {
                let want = Int(min(Int64(input.count), entry.compressed - taken))
                inputEnd = try pread(into: input.baseAddress!, count: want)
                inputStart = 0
            }
            var consumed = 0, made = 0
            let step = pm_inflater_run(inflater, input.baseAddress!.assumingMemoryBound(to: UInt8.self) + inputStart,
                                       inputEnd - inputStart, &consumed, buffer.assumingMemoryBound(to: UInt8.self), count, &made)
            inputStart += consumed
            if Int64(made) > entry.uncompressed - produced {
                // Past its declared size: what fits is given (a reader's first bytes still tell what it is).
                let fits = Int(entry.uncompressed - produced)
                account(buffer, fits)
                overrun = true
                if fits > 0 { return fits }
                return try read(into: buffer, count: count)
            }
            switch step {
            case PM_INFLATE_END:
                account(buffer, made)
                try check()
                if made > 0 {
                    // The next read reports the end.
                    return made
                }
                try finish()
                return 0
            case PM_INFLATE_MORE:
                account(buffer, made)
                try check()
                if made > 0 { return made }
                if consumed == 0, inputStart == inputEnd, taken >= entry.compressed {
                    throw ReaderFiles.StreamFailure("its deflated data ends early (a truncated archive?)")
                }
            case PM_INFLATE_NO_MEMORY:
                throw ReaderFiles.StreamFailure("out of memory while inflating it")
            default:
                throw ReaderFiles.StreamFailure("corrupt deflated data at byte \(taken - Int64(inputEnd - inputStart))")
            }
        }
    }

    private func account(_ buffer: UnsafeMutableRawPointer, _ n: Int) {
        guard n > 0 else { return }
        crc = pm_crc32(crc, buffer.assumingMemoryBound(to: UInt8.self), n)
        produced += Int64(n)
        ZipArchive.streamedBytes.add(Int64(n), ordering: .relaxed)
    }

    private func check() throws(ReaderFiles.StreamFailure) {
        guard produced <= entry.uncompressed, produced <= ZipArchive.maximumStreamed else {
            throw ReaderFiles.StreamFailure("expands past what its header says (\(entry.uncompressed) bytes; a zip bomb?)")
        }
    }

    /// The entry's end: its size and checksum checked.
    private func finish() throws(ReaderFiles.StreamFailure) {
        ended = true
        guard produced == entry.uncompressed, crc == entry.crc else {
            throw ReaderFiles.StreamFailure("its data does not match its checksum (a damaged or truncated archive?)")
        }
    }

    private func pread(into buffer: UnsafeMutableRawPointer, count: Int) throws(ReaderFiles.StreamFailure) -> Int {
        if let failure = ZipArchive.read(member.archive, into: buffer, count: count, at: entry.dataStart + taken) {
            throw ReaderFiles.StreamFailure(failure)
        }
        taken += Int64(count)
        return count
    }
}
