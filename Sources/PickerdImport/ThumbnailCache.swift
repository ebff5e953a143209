import Glibc
public import Foundation
public import PickerdStore

/// Small PNG previews of the person's own photos and videos for the pickers, made on first use and
/// kept in the store's data directory (`thumbnails/`, mode 0700), never where an app can read them.
/// A preview is named by its item and slot, and carries its file's mtime as its own: a changed file
/// gets its preview made again in place, so none is left behind for a file's older versions.
public struct ThumbnailCache: Sendable {
    /// Where previews are kept.
    public let directory: String
    /// The longest side of a preview, in pixels.
    public static let maxSide = 320

    /// Creates the cache.
    /// - Parameter dataDirectory: the store's data directory.
    public init(dataDirectory: String) {
        directory = dataDirectory + "/thumbnails"
    }

    /// A preview's path, made now if it is not there yet or its file changed since.
    /// - Parameters:
    ///   - media: a person's file, as indexed.
    ///   - itemID: its item.
    ///   - slot: its index in the item's media.
    ///   - reading: how the file is decoded (pickerd passes its confined readers).
    /// - Returns: the PNG's path and its bytes' count.
    /// - Throws: ``ProbeError`` when the file cannot be decoded or the preview cannot be written.
    public func preview(of media: StoredMedia, itemID: UUID, slot: Int,
                        reading: any FileReading) throws(ProbeError) -> (path: String, byteCount: UInt64) {
        let path = "\(directory)/\(itemID.uuidString)-\(slot).png"
        let stamp = media.modifiedNs ?? 0
        var info = stat()
        if stat(path, &info) == 0, info.st_size > 0,
           info.st_mtim.nanoseconds == stamp {
            return (path, UInt64(info.st_size))
        }
        let png = try reading.preview(path: media.relativePath, contentType: media.contentType, maxSide: Self.maxSide)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(png).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ProbeError(.unreadable, "cannot keep a preview in \(directory): \(error.localizedDescription)")
        }
        // The preview's mtime is its file's: what the next look compares.
        var times = [timespec(tv_sec: time_t(stamp / 1_000_000_000), tv_nsec: Int(stamp % 1_000_000_000)),
                     timespec(tv_sec: time_t(stamp / 1_000_000_000), tv_nsec: Int(stamp % 1_000_000_000))]
        _ = utimensat(AT_FDCWD, path, &times, 0)
        return (path, UInt64(png.count))
    }
}
