import Foundation
import Logging
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdTransport
import PickerdWire
import SystemPackage

/// Stored media as it leaves pickerd, for a release or a preview: opened only when it is still the
/// file indexed, copied into sealed memory files (an app or agent gets a copy no one can change,
/// never a descriptor of pickerd's files), with its location removed when the person kept no place.
struct SealedMedia: Sendable {
    let store: Store

    /// A sealed copy of a stored file as it is (``SealedMemoryFile``).
    func sealedCopy(_ media: StoredMedia) throws -> OwnedFileDescriptor {
        let source = try open(media)
        defer { try? source.close() }
        return try SealedMemoryFile.copy(from: source, name: media.filename)
    }

    /// A sealed copy with location metadata removed, decided by the file's content
    /// (``ExifRedactor/strippingLocation(_:)``: JPEG with its appended images and motion-photo movies,
    /// PNG, TIFF and DNG, HEIC and AVIF, QuickTime and MP4, WebP, JPEG XL, GIF); a type it cannot
    /// redact throws.
    func redactedCopy(_ media: StoredMedia) throws -> OwnedFileDescriptor {
        let source = try open(media)
        defer { try? source.close() }
        // A movie of gigabytes is redacted without reading its media data.
        if let copy = try LargeMovieRedaction.redactedCopy(of: source, name: media.filename) { return copy }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return try SealedMemoryFile.make(name: media.filename, contents: try ExifRedactor.strippingLocation(bytes))
    }

    /// Opens a media file for release or preview. A person's own file must be the one indexed: opened
    /// without following links, the descriptor's device, inode, size, mtime and ctime (read from it,
    /// so no rename in between can swap it) must be the index's (``PersonsFile``).
    /// - Throws: ``MediaUnavailable`` for a person's file changed or gone; other errors otherwise.
    func open(_ media: StoredMedia) throws -> FileDescriptor {
        let path = store.path(of: media)
        guard media.isPersonsFile else { return try FileDescriptor.open(path, .readOnly, options: .closeOnExec) }
        guard let raw = PersonsFile.open(path) else { throw MediaUnavailable(reason: PersonsFile.missing(media)) }
        let fd = FileDescriptor(rawValue: raw)
        let record: SourceFile?
        do {
            record = try store.sourceFiles(paths: [path]).first
        } catch {
            try? fd.close()
            throw error
        }
        if let reason = PersonsFile.unavailability(of: media, record: record, descriptor: fd.rawValue) {
            try? fd.close()
            throw MediaUnavailable(reason: reason)
        }
        return fd
    }
}
