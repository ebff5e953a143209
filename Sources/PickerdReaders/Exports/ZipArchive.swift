import Foundation
import Glibc
import PickerdMoments
import PickerdLibrary
import PickerdImport

/// Unpacks a zip archive (Strava's and Garmin's bulk exports, Takeout's downloads) into memory
/// (sealed memfds, seen through ``ReaderFiles/withOverlay(_:_:)``), one entry at a time, so its
/// files can be imported as a folder's without writing a file anywhere. Stored and deflated
/// entries are read; everything is bounded: an entry may not inflate past ``maximumEntry``, the
/// archive past ``maximumTotal``, nor any entry past ``maximumRatio`` times its compressed size (a
/// zip bomb stops at the first entry that tries). Names with `..` or an absolute path are refused.
/// ZIP64 archives (over 4 GB, as Takeout's largest) are not read yet.
enum ZipArchive {
    /// The most one entry may inflate to.
    static let maximumEntry = 512 << 20
    /// The most the whole archive may inflate to.
    static let maximumTotal = 2 << 30
    /// The most an entry may inflate relative to its compressed size.
    static let maximumRatio = 200

    /// A member unpacked into memory.
    struct Member {
        /// Its path in the archive.
        var entry: String
        /// A sealed `memfd_create` descriptor holding its bytes; the caller closes it.
        var fd: Int32
    }

    /// Unpacks `path` (opened through ``ReaderFiles``) into memory: each member a sealed memfd, so
    /// nothing is written to any file system. The bounds are the same whether or not it is read:
    /// ``maximumEntry``, ``maximumTotal``, ``maximumRatio``.
    /// - Returns: the members, in the archive's order.
    /// - Throws: ``ImportError`` naming the archive and the entry (every memfd made is closed then).
    static func unpack(path: String, name: String) throws(ImportError) -> [Member] {
        var members: [Member] = []
        do {
            try forEachEntry(path: path, name: name) { entryName, bytes throws(ImportError) in
                guard let fd = ReaderFiles.memoryFile(entryName, bytes) else {
                    throw ImportError(file: name, location: entryName, "cannot be unpacked: \(String(cString: strerror(errno)))")
                }
                members.append(Member(entry: entryName, fd: fd))
            }
        } catch {
            for member in members { close(member.fd) }
            throw error
        }
        return members
    }

    /// Reads every file entry of `path` (through ``ReaderFiles``), checked and bounded, and hands
    /// each to `body` with its path in the archive (its parts joined by single slashes).
    private static func forEachEntry(path: String, name: String,
                                     _ body: (String, [UInt8]) throws(ImportError) -> Void) throws(ImportError) {
        guard let handle = ReaderFiles.open(path) else { throw ImportError(file: name, "cannot be read") }
        defer { close(handle) }
        let size = ReaderFiles.size(of: handle) ?? 0
        // The end of central directory record: 22 bytes, within the last 64 KiB (its comment).
        let tailStart = max(0, size - 65_557)
        let tail = try read(handle, at: tailStart, count: size - tailStart, name: name)
        guard let eocd = stride(from: tail.count - 22, through: 0, by: -1).first(where: { le32(tail, $0) == 0x0605_4B50 }) else {
            throw ImportError(file: name, "not a zip archive (no end of central directory)")
        }
        let entries = Int(le16(tail, eocd + 10))
        let directorySize = Int(le32(tail, eocd + 12)), directoryOffset = Int(le32(tail, eocd + 16))
        if directoryOffset == 0xFFFF_FFFF || entries == 0xFFFF {
            throw ImportError(file: name, "a ZIP64 archive (over 4 GB or 65,535 files) is not read yet: unpack it and import the folder")
        }
        guard directoryOffset + directorySize <= size else { throw ImportError(file: name, "the central directory runs past the end") }
        let central = try read(handle, at: directoryOffset, count: directorySize, name: name)
        var offset = 0, total = 0
        for index in 0..<entries {
            guard offset + 46 <= central.count, le32(central, offset) == 0x0201_4B50 else {
                throw ImportError(file: name, location: "entry \(index)", "the central directory is broken")
            }
            let method = le16(central, offset + 10), crc = le32(central, offset + 16)
            let compressed = Int(le32(central, offset + 20)), uncompressed = Int(le32(central, offset + 24))
            let nameLength = Int(le16(central, offset + 28)), extraLength = Int(le16(central, offset + 30))
            let commentLength = Int(le16(central, offset + 32)), local = Int(le32(central, offset + 42))
            guard offset + 46 + nameLength <= central.count else { throw ImportError(file: name, location: "entry \(index)", "its name runs past the end") }
            let entryName = String(decoding: central[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self)
            offset += 46 + nameLength + extraLength + commentLength
            if entryName.hasSuffix("/") { continue }  // a folder
            let parts = entryName.split(separator: "/")
            guard !entryName.hasPrefix("/"), !parts.contains(".."), !parts.isEmpty else {
                throw ImportError(file: name, location: entryName, "an entry whose name leaves the archive's folder")
            }
            if parts.last == "export.xml", uncompressed > maximumEntry || total + uncompressed > maximumTotal {
                // Apple Health's export.xml is often larger than an entry may unpack to here; its reader streams it from a folder.
                throw ImportError(file: name, location: entryName,
                                  "an export.xml of \(uncompressed >> 20) MiB is larger than a zip entry may unpack to (\(maximumEntry >> 20) MiB): "
                                  + "unzip the archive and import its apple_health_export folder")
            }
            guard uncompressed <= maximumEntry, uncompressed <= max(compressed, 1) * maximumRatio, total + uncompressed <= maximumTotal else {
                throw ImportError(file: name, location: entryName, "an entry that would expand to \(uncompressed >> 20) MiB was refused (a zip bomb?)")
            }
            let header = try read(handle, at: local, count: 30, name: name)
            guard le32(header, 0) == 0x0403_4B50 else { throw ImportError(file: name, location: entryName, "its local header is missing") }
            let dataStart = local + 30 + Int(le16(header, 26)) + Int(le16(header, 28))
            guard dataStart + compressed <= size else { throw ImportError(file: name, location: entryName, "its data runs past the end") }
            let data = try read(handle, at: dataStart, count: compressed, name: name)
            let bytes: [UInt8]
            switch method {
            case 0: bytes = data
            case 8: bytes = try inflate(data, limit: uncompressed, name: name, entry: entryName)
            default: throw ImportError(file: name, location: entryName, "compression method \(method) is not read (only stored and deflated)")
            }
            guard bytes.count == uncompressed, CRC32.checksum(bytes) == crc else {
                throw ImportError(file: name, location: entryName, "its data does not match its checksum")
            }
            total += bytes.count
            try body(parts.joined(separator: "/"), bytes)
        }
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

    private static func read(_ handle: Int32, at offset: Int, count: Int, name: String) throws(ImportError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(handle, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw ImportError(file: name, location: "byte \(offset)", "cannot be read: \(String(cString: strerror(errno)))") }
            guard n > 0 else { throw ImportError(file: name, location: "byte \(offset)", "the archive ends early") }
            done += n
        }
        return bytes
    }

    private static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
}
