public import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire

/// Listens and moods as library items, written with the rest of a file's data (one transaction):
/// - a listen is a Song (song, artist, album, date), or a Podcast (episode, show: the album when the
///   export names one, else the artist) when its export marks it so; its id comes from the artist and
///   the track (case, spacing and Unicode composition folded) and the minute it was played, so the
///   same listen from ListenBrainz and from Last.fm (whose lastfm-to-csv dates stop at the minute) is
///   one item; and a listen whose id the library lacks takes the id of the same play from another
///   source (Spotify's start is its end less the time played) that started within two minutes
///   (``ExportItems/sameListenToleranceMs``). The copy already there stays unless the new one says
///   more (a podcast where a song was, an album where there was none, a duration);
/// - a mood is a StateOfMind (no icon; the backgrounds and the valence classification of
///   ``StateOfMindStyle``) whose id comes from its format and minute, so importing the export again
///   changes only what the person changed in the app.
extension ExportItems {
    /// Adds the items for `data`'s listens and moods to `changes`, counting those already in the
    /// library (or twice in the file) as duplicates.
    /// - Parameter listens: `data`'s listens already picked (``pick(_:)``), when the caller made them apart.
    /// - Throws: ``StoreError`` reading what is already there.
    func addListening(_ data: ImportedData, listens: PickedListens?, to changes: inout SourceChanges, written: inout Written) throws(StoreError) {
        if !data.listens.isEmpty {
            let chosen = listens ?? Self.pick(data.listens)
            var picked = chosen.items
            written.duplicates += chosen.duplicates
            // What the library has already, read a bounded chunk at a time (only how rich each is is kept).
            var existing: [UUID: Int] = [:]
            for start in stride(from: 0, to: picked.count, by: Self.lookupChunk) {
                let ids = picked[start..<min(start + Self.lookupChunk, picked.count)].map(\.id)
                for item in try store.items(ids) { existing[item.id] = Self.richness(item) }
            }
            try matchAcrossSources(&picked, existing: &existing)
            picked.removeAll { item in
                guard let old = existing[item.id] else { return false }
                written.duplicates += 1
                return Self.richness(item) <= old
            }
            // Handed over, not copied, when the file held nothing else (100 000 items are tens of MB).
            if changes.items.isEmpty { changes.items = picked } else { changes.items += picked }
        }
        if !data.moods.isEmpty {
            let items = data.moods.map(Self.item(for:))
            var existing: [UUID: StateOfMindSample] = [:]
            for item in try store.items(items.map(\.id)) {
                if case .stateOfMind(let s) = item.asset, let state = s.state { existing[item.id] = state }
            }
            var seen = Set<UUID>()
            for item in items {
                guard seen.insert(item.id).inserted else {
                    written.duplicates += 1
                    continue
                }
                if let old = existing[item.id] {
                    written.duplicates += 1
                    if case .stateOfMind(let s) = item.asset, s.state == old { continue }
                }
                changes.items.append(item)
            }
        }
    }

    /// A file's listens as items, one per id (the richest copy, in file order), and how many were a
    /// play the file held already: made from the file alone, without the store, so an import makes
    /// them for the next file while this one is written (``ExportImporter``).
    public struct PickedListens: Sendable {
        /// The items.
        var items: [LibraryItem]
        /// Listens left out as a copy of one kept.
        var duplicates: Int
    }

    /// Picks a file's listens' items (``PickedListens``).
    public static func pick(_ listens: [ImportedListen]) -> PickedListens {
        var picked: [LibraryItem] = [], index: [UUID: Int] = [:], duplicates = 0
        picked.reserveCapacity(listens.count)
        index.reserveCapacity(listens.count)
        for listen in listens {
            let item = Self.item(for: listen)
            if let at = index[item.id] {
                duplicates += 1
                if Self.richness(item) > Self.richness(picked[at]) { picked[at] = item }
            } else {
                index[item.id] = picked.count
                picked.append(item)
            }
        }
        return PickedListens(items: picked, duplicates: duplicates)
    }

    /// How far apart two sources may put the start of one play and still be that play: two minutes.
    /// Spotify keeps when a play ended and how long it played, so its start (the end less the time
    /// played) is later than the real one by any pause; Last.fm's and ListenBrainz's scrobblers
    /// (Spotify's own among them) send when the track started; and the minute in a listen's id
    /// splits two starts seconds apart across a minute's boundary. A track played twice in a row is
    /// at least 30 s apart (shorter ones never count), and each item already there is matched by one
    /// listen at most, the nearest, so repeats stay two items.
    public static let sameListenToleranceMs: Int64 = 120_000

    /// Gives each listen whose own id the library lacks the id of the same play from another source
    /// already there: a Song (or Podcast) with the same artist and track (show and episode), folded,
    /// that started within ``sameListenToleranceMs`` (the nearest; each matched once). Read by time
    /// window (a day, or ``lookupChunk`` listens, at most), so a library that has none reads little.
    /// - Parameters:
    ///   - picked: the file's listens' items; a matched one takes the id of the one already there.
    ///   - existing: how rich each item already there is, by id; matched ones are added.
    /// - Throws: ``StoreError`` reading what is already there.
    func matchAcrossSources(_ picked: inout [LibraryItem], existing: inout [UUID: Int]) throws(StoreError) {
        let tolerance = Self.sameListenToleranceMs
        var claimed = Set(existing.keys)
        // The starts apart from the items: sorting and windowing touch only these (no item copied).
        let starts = picked.map(\.startMs)
        let unmatched = picked.indices.filter { existing[picked[$0].id] == nil }.sorted { starts[$0] < starts[$1] }
        var rest = unmatched[...]
        while let first = rest.first {
            let from = starts[first]
            let limit = min(rest.endIndex, rest.startIndex + Self.lookupChunk)
            var end = rest.startIndex
            while end < limit, starts[rest[end]] - from <= 86_400_000 { end += 1 }
            let window = rest[..<end]
            rest = rest[end...]
            let to = starts[window.last!]
            var nearby: [String: [(id: UUID, startMs: Int64, richness: Int)]] = [:]
            for item in try store.items(startingFrom: from - tolerance, to: to + tolerance) where !claimed.contains(item.id) {
                guard let key = Self.listenKey(item) else { continue }
                nearby[key, default: []].append((item.id, item.startMs, Self.richness(item)))
            }
            guard !nearby.isEmpty else { continue }
            for i in window {
                guard let key = Self.listenKey(picked[i]), let candidates = nearby[key] else { continue }
                let start = starts[i]
                guard let best = candidates.filter({ abs($0.startMs - start) <= tolerance && !claimed.contains($0.id) })
                    .min(by: { abs($0.startMs - start) < abs($1.startMs - start) }) else { continue }
                claimed.insert(best.id)
                existing[best.id] = best.richness
                picked[i].id = best.id
            }
        }
    }

    /// What makes two listens' items the same play's, time aside: a song's artist and title, a
    /// podcast's show and episode, folded; nil for other items.
    static func listenKey(_ item: LibraryItem) -> String? {
        switch item.asset {
        case .song(let s): return "s|\(fold(s.artist))|\(fold(s.song))"
        case .podcast(let p): return "p|\(fold(p.show))|\(fold(p.episode))"
        default: return nil
        }
    }

    /// How many ids one look-up of the items already there asks for: the store keeps what it
    /// reads in a cache of 10 000, and a file of 100 000 listens must not fill memory with them.
    static let lookupChunk = 2_000

    /// The id of a listen: its artist and track, folded, and its minute.
    static func listenID(_ listen: ImportedListen) -> UUID {
        listenID(artist: listen.artist, track: listen.track, startMs: listen.startMs)
    }

    /// The id of a listen from its artist, track and when it started: the same for a play pickerd
    /// recorded live and for that listen in a ListenBrainz or Last.fm export, so the two are one item.
    ///
    /// Laid out as a UUIDv7 (RFC 9562): its first 48 bits are the minute it started, in ms since
    /// 1970, the rest the name's hash. A history's listens are then written in the order of their
    /// ids, so the item and song tables' keys grow at their end instead of being rewritten all
    /// through with every file: with random ids, 234,000 listens wrote 606 MB. Listens stored
    /// before (with ids of the hash alone) keep theirs: the same play read again finds them by artist,
    /// track and time (``matchAcrossSources(_:existing:)``).
    /// - Parameters:
    ///   - artist: the artist (folded: case, spacing and Unicode composition do not matter).
    ///   - track: the track or episode.
    ///   - startMs: when it started playing, ms since 1970 (only its minute counts).
    /// - Returns: the item id.
    public static func listenID(artist: String, track: String, startMs: Int64) -> UUID {
        let minute = startMs / 60_000
        var bytes = SuggestionBuilder.stableID("import|listen|\(fold(artist))|\(fold(track))|\(minute)").uuid
        let ms = UInt64(bitPattern: minute * 60_000)
        bytes.0 = UInt8(truncatingIfNeeded: ms >> 40)
        bytes.1 = UInt8(truncatingIfNeeded: ms >> 32)
        bytes.2 = UInt8(truncatingIfNeeded: ms >> 24)
        bytes.3 = UInt8(truncatingIfNeeded: ms >> 16)
        bytes.4 = UInt8(truncatingIfNeeded: ms >> 8)
        bytes.5 = UInt8(truncatingIfNeeded: ms)
        bytes.6 = 0x70 | (bytes.6 & 0x0F)  // version 7
        bytes.8 = 0x80 | (bytes.8 & 0x3F)  // RFC 9562's variant
        return UUID(uuid: bytes)
    }

    /// `s` lowercased, in Unicode's composed form, with runs of white space made one space.
    static func fold(_ s: String) -> String {
        // ASCII (most names) is folded byte by byte; Foundation's composition is for the rest.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            guard b < 0x80 else {
                return s.precomposedStringWithCanonicalMapping.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
            }
            switch b {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                if let last = bytes.last, last != 0x20 { bytes.append(0x20) }
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(b + 0x20)
            default: bytes.append(b)
            }
        }
        if bytes.last == 0x20 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The Song or Podcast item a listen becomes.
    static func item(for listen: ImportedListen) -> LibraryItem {
        let date = Timestamp(unixMs: listen.startMs)
        let asset: Item.Asset = listen.isPodcast
            ? .podcast(Podcast(episode: listen.track, show: listen.album.isEmpty ? listen.artist : listen.album, date: date))
            : .song(Song(song: listen.track, artist: listen.artist, album: listen.album, date: date))
        return LibraryItem(id: listenID(listen), asset: asset, startMs: listen.startMs, endMs: listen.startMs + (listen.durationMs ?? 0),
                           source: "import", externalID: listen.format)
    }

    /// How much a listen's item says: a podcast's kind over a song's, then an album, then a duration.
    static func richness(_ item: LibraryItem) -> Int {
        // A play recorded live carries its artwork, which no export has: an import never replaces it.
        let duration = item.endMs > item.startMs ? 1 : 0, artwork = item.media.isEmpty ? 0 : 8
        switch item.asset {
        case .podcast: return 4 + duration + artwork
        case .song(let s): return (s.album.isEmpty ? 0 : 2) + duration + artwork
        default: return 0
        }
    }

    /// The id of a mood: its format and its minute.
    static func moodID(_ mood: ImportedMood) -> UUID {
        SuggestionBuilder.stableID("import|mood|\(mood.format)|\(mood.startMs / 60_000)")
    }

    /// The StateOfMind item a mood becomes.
    static func item(for mood: ImportedMood) -> LibraryItem {
        let backgrounds = StateOfMindStyle.backgrounds(valence: mood.valence)
        let sample = StateOfMindSample(kind: mood.kind, valence: mood.valence, valenceClassification: StateOfMindStyle.classification(valence: mood.valence),
                                       labels: mood.labels, associations: mood.associations, date: Timestamp(unixMs: mood.startMs))
        return LibraryItem(id: moodID(mood), asset: .stateOfMind(StateOfMind(state: sample, lightBackground: backgrounds.light, darkBackground: backgrounds.dark)),
                           startMs: mood.startMs, source: "import", externalID: mood.format)
    }
}
