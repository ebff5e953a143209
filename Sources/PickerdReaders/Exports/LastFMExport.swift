import Foundation
import PickerdMoments
public import PickerdImport

/// Last.fm scrobbles, as the common export tools write them (Last.fm itself offers no export):
/// - **lastfm-to-csv** (benjaminbenben.com/lastfm-to-csv, github.com/benfoxall/lastfm-to-csv): no
///   header, `artist,album,track,date` per scrobble, newest first; the tool strips commas and quotes
///   from every field instead of quoting, so the API's date `31 Jan 2021, 12:34` (UTC) arrives as
///   `31 Jan 2021 12:34`, and a track playing while the export ran has an empty date. Its later
///   version writes the header `artist,album,name,date` above the same rows.
/// - **lastfm.ghan.nl** ("mainstream" export) and the tools that copy its layout: the header
///   `uts,utc_time,artist,artist_mbid,album,album_mbid,track,track_mbid`, fields quoted, `uts` the Unix
///   time (`utc_time` its text, `17 May 2026, 12:54`, read only when `uts` is empty).
///
/// A file is told from other CSVs by that header or by the shape of its first rows (four fields, the
/// last a Last.fm date), never by its name. Last.fm exports carry no mark of a podcast: every
/// scrobble is a song. Rows with no time (a track playing during the export) are skipped; a row with
/// a time that cannot be read, a missing artist or track, or the wrong number of fields refuses the
/// file, naming the line. Streamed: a record at a time.
public enum LastFMExport {
    /// Where a Last.fm CSV keeps what a listen needs.
    struct Layout: Equatable {
        var artist: Int
        var album: Int?
        var track: Int
        /// The Unix time column (`uts`).
        var uts: Int?
        /// The column with the time as text (`date`, `utc_time`).
        var date: Int?
        /// Fields each row must have (the headerless form: exactly these).
        var width: Int

        /// lastfm-to-csv's rows: `artist,album,track,date`.
        static let lastfmToCSV = Layout(artist: 0, album: 1, track: 2, uts: nil, date: 3, width: 4)

        init(artist: Int, album: Int?, track: Int, uts: Int?, date: Int?, width: Int) {
            self.artist = artist
            self.album = album
            self.track = track
            self.uts = uts
            self.date = date
            self.width = width
        }

        /// The layout a header line gives (its fields trimmed and lowercased), nil when it is not a
        /// Last.fm export's header.
        init?(header: [String]) {
            if header == ["artist", "album", "name", "date"] {
                self = .lastfmToCSV
                return
            }
            guard header.count >= 4, header[0] == "uts", header[1] == "utc_time",
                  let artist = header.firstIndex(of: "artist"), let track = header.firstIndex(of: "track") else { return nil }
            self.init(artist: artist, album: header.firstIndex(of: "album"), track: track, uts: 0, date: 1, width: max(artist, track) + 1)
        }
    }

    /// Reads a Last.fm CSV export.
    /// - Parameters:
    ///   - path: the file.
    ///   - name: its name, for errors.
    /// - Returns: its scrobbles, as songs, in file order.
    /// - Throws: ``ImportError`` naming the file and the line.
    public static func read(path: String, name: String) throws(ImportError) -> ImportedData {
        var data = ImportedData()
        var pool = StringPool()
        var layout: Layout?
        try CSVRecords.forEach(path: path, name: name) { fields, line throws(ImportError) in
            func fail(_ message: String) -> ImportError { ImportError(file: name, location: "line \(line)", message) }
            if layout == nil {
                if let header = Layout(header: fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
                    layout = header
                    return
                }
                layout = .lastfmToCSV
            }
            let columns = layout!
            if columns == .lastfmToCSV {
                guard fields.count == 4 else { throw fail("\(fields.count) fields where a scrobble has 4 (artist, album, track, date)") }
            } else {
                guard fields.count >= columns.width else { throw fail("\(fields.count) fields, fewer than the header's") }
            }
            func field(_ index: Int?) -> String {
                guard let index, index < fields.count else { return "" }
                return fields[index].trimmedEnds
            }
            let ms: Int64
            if !field(columns.uts).isEmpty {
                let text = field(columns.uts)
                guard let seconds = Int64(text), seconds > 0, seconds < 32_503_680_000 else { throw fail("uts \"\(text)\" is not a Unix time") }
                ms = seconds * 1000
            } else if !field(columns.date).isEmpty {
                let text = field(columns.date)
                guard let parsed = milliseconds(lastFM: text) else { throw fail("the date \"\(text)\" is not a Last.fm date (like 31 Jan 2021 12:34, UTC)") }
                ms = parsed
            } else {
                return  // playing while the export ran: not a scrobble yet
            }
            let artist = field(columns.artist), track = field(columns.track)
            guard !artist.isEmpty else { throw fail("a scrobble without an artist") }
            guard !track.isEmpty else { throw fail("a scrobble without a track") }
            data.listens.append(ImportedListen(startMs: ms, artist: pool(artist), track: track, album: pool(field(columns.album)), format: "lastfm"))
        }
        return data
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Milliseconds since 1970 of a date as Last.fm's API writes it, in UTC: `31 Jan 2021, 12:34`,
    /// `31 Jan 2021 12:34` (lastfm-to-csv drops the comma), `01 Jan 2024, 00:00:00` (with seconds).
    /// - Returns: nil when it is not such a date (or not a real one: `31 Feb`).
    static func milliseconds(lastFM text: String) -> Int64? {
        let parts = text.replacingOccurrences(of: ",", with: " ").split(separator: " ")
        func digits(_ s: Substring) -> Bool { !s.isEmpty && s.allSatisfy { $0 >= "0" && $0 <= "9" } }
        guard parts.count == 4, parts[0].count <= 2, digits(parts[0]), digits(parts[2]), let day = Int(parts[0]), parts[1].count == 3,
              let month = months.firstIndex(of: parts[1].lowercased()).map({ $0 + 1 }),
              parts[2].count == 4, let year = Int(parts[2]) else { return nil }
        let time = parts[3].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 2 || time.count == 3, time.allSatisfy({ $0.count <= 2 && digits($0) }),
              let hour = Int(time[0]), let minute = Int(time[1]), hour < 24, minute < 60 else { return nil }
        let second = time.count == 3 ? Int(time[2]) : 0
        guard let second, second < 60, day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let days = Int64(Civil.days(year: year, month: month, day: day))
        return (days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)) * 1_000
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
