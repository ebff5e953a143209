import Foundation
import PickerdImport

/// Which reader reads which kind of export, and how: location history streamed from its path (a
/// Records.json of a million points never sits in memory), workout files read whole (bounded by
/// ``ExportImporter/maximumWholeFile``), a gzip-compressed file inflated (bounded) and told again.
enum ExportReaders {
    /// Reads one file of `kind`.
    /// - Parameters:
    ///   - kind: what its first bytes say it is.
    ///   - path: the file.
    ///   - name: its name, for errors.
    ///   - points: told how many raw points were read so far (streamed formats).
    ///   - horizon: when a calendar's recurrences are expanded (ms since 1970); by default the
    ///     present's (``CalendarReader/horizon(library:now:)`` without a library).
    /// - Returns: what it held, and how many raw points it had.
    static func read(_ kind: ExportKind, path: String, name: String, points: (Int) -> Void,
                     horizon: ClosedRange<Int64>? = nil) throws(ImportError) -> (data: ImportedData, points: Int) {
        var counted = 0
        switch kind {
        case .records:
            let data = try TakeoutRecords.read(path: path) { n in
                counted = n
                points(n)
            }
            return (data, counted)
        case .semantic:
            return (try SemanticLocationHistory.read(path: path), 0)
        case .timeline:
            return (try TakeoutTimeline.read(path: path), 0)
        case .mapsHistory:
            return (try GoogleMapsLocationHistory.read(path: path, name: name), 0)
        case .owntracks:
            let data = try OwnTracksRecorder.read(path: path)
            return (ImportedData(workouts: data.workouts, visits: data.visits), data.points.count)
        case .gpx, .tcx, .fit, .gzip:
            let bytes = try whole(path, name: name)
            let inflated = kind == .gzip ? try WorkoutFiles.inflatedIfGzip(bytes, file: name) : bytes
            let inner = kind == .gzip ? ExportKind.detect(Array(inflated.prefix(4_096)), name: String(name.dropLast(3))) : kind
            switch inner {
            case .gpx: return (try GPXReader.read(inflated, file: name), 0)
            case .tcx: return (try TCXReader.read(inflated, file: name), 0)
            case .fit: return (try FITReader.read(inflated, file: name), 0)
            default: throw ImportError(file: name, "a compressed file that holds no GPX, TCX or FIT")
            }
        case .listenbrainz:
            return (try ListenBrainzExport.read(path: path, name: name), 0)
        case .lastfm:
            return (try LastFMExport.read(path: path, name: name), 0)
        case .spotify:
            return (try SpotifyExport.read(path: path, name: name), 0)
        case .daylio:
            return (try DaylioExport.read(path: path, name: name), 0)
        case .vcard:
            return (try VCardReader.read(path: path, name: name), 0)
        case .ics:
            let horizon = horizon ?? CalendarReader.horizon(library: nil, now: Int64(Date().timeIntervalSince1970 * 1000))
            return (try CalendarReader.read(path: path, name: name, horizon: horizon), 0)
        case .appleHealth:
            return (try AppleHealthExport.read(path: path, name: name, records: points), 0)
        case .gadgetbridge:
            return (try GadgetbridgeExport.read(path: path, name: name), 0)
        case .zip:
            // ExportImporter unpacks archives before reading what they hold; a zip never reaches here.
            throw ImportError(file: name, "a zip archive is unpacked, not read as an export")
        }
    }

    /// The whole file at `path` (opened through ``ReaderFiles``), when it is not larger than
    /// `limit`: the readers of formats read at once (workout files, calendars, address books, route
    /// files) share it.
    /// - Parameters:
    ///   - path: the file.
    ///   - name: its name, for errors.
    ///   - limit: the most bytes read.
    ///   - what: what such a file is, for the error ("a calendar").
    /// - Throws: ``ImportError`` when it is larger or cannot be read.
    static func whole(_ path: String, name: String, limit: Int = ExportImporter.maximumWholeFile,
                      what: String = "a workout file") throws(ImportError) -> [UInt8] {
        guard let fd = ReaderFiles.open(path) else { throw ImportError(file: name, "cannot be read") }
        defer { close(fd) }
        let size = ReaderFiles.size(of: fd) ?? 0
        guard size <= limit else {
            throw ImportError(file: name, "\(size >> 20) MB is larger than \(what) can be")
        }
        do throws(ReaderFiles.ReadFailure) {
            return try ReaderFiles.read(fd, limit: limit)
        } catch .tooLarge {
            throw ImportError(file: name, "it grew past what \(what) can be while it was read")
        } catch {
            throw ImportError(file: name, "cannot be read")
        }
    }
}
