public import Foundation
public import PickerdWire

/// A media file the store holds for an item: in the store's private media directory, or one of the
/// person's own files, indexed where it is.
public struct StoredMedia: Sendable, Hashable {
    /// The file's path relative to the media directory, or, for a person's own file, its absolute
    /// path. Never sent to a client.
    public var relativePath: String
    /// A MIME type.
    public var contentType: String
    /// The name the file is offered under (no directories).
    public var filename: String
    /// The file's size in bytes.
    public var byteCount: UInt64
    /// Width in pixels, 0 when not an image.
    public var pixelWidth: UInt32
    /// Height in pixels, 0 when not an image.
    public var pixelHeight: UInt32
    /// For a person's own file, its modification time (ns since 1970) when it was indexed: a file
    /// whose size or mtime differ at release is not the one the person saw, and stays. `nil` for
    /// the store's own files.
    public var modifiedNs: Int64?

    /// Whether the file is one of the person's own, indexed in place (its path is absolute).
    public var isPersonsFile: Bool { relativePath.hasPrefix("/") }

    /// Creates a media record.
    /// - Parameters:
    ///   - relativePath: the path below the media directory.
    ///   - contentType: a MIME type.
    ///   - filename: the offered file name.
    ///   - byteCount: the size in bytes.
    ///   - pixelWidth: width in pixels, 0 when not an image.
    ///   - pixelHeight: height in pixels, 0 when not an image.
    ///   - modifiedNs: a person's file's mtime when indexed (`nil` for the store's own files).
    public init(relativePath: String, contentType: String, filename: String, byteCount: UInt64,
                pixelWidth: UInt32 = 0, pixelHeight: UInt32 = 0, modifiedNs: Int64? = nil) {
        self.relativePath = relativePath
        self.contentType = contentType
        self.filename = filename
        self.byteCount = byteCount
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.modifiedNs = modifiedNs
    }

    /// The wire description of this file, with no descriptor attached.
    /// - Parameter slot: the index of this file in its item's media list.
    /// - Returns: a `Media` whose `fdIndex` is `slot` and `hasFd` false.
    public func media(slot: Int) -> Media {
        Media(hasFd: false, fdIndex: UInt32(slot), contentType: contentType, filename: filename,
              byteCount: byteCount, pixelWidth: pixelWidth, pixelHeight: pixelHeight)
    }
}

/// One asset in the person's library, as the store holds it.
///
/// The asset is the wire type itself. Inside the store every `Media` it holds has `hasFd` false and
/// `fdIndex` equal to the file's index in ``media``; pickerd rewrites both when it attaches files to
/// a frame.
public struct LibraryItem: Sendable, Hashable, Identifiable {
    /// The `source` of the stays the moments engine derives from photos where no location source
    /// says where the person was (PickerdMoments' `PhotoStays`).
    public static let photoStaySource = "photos"
    /// The `source` of the reflection prompts the project writes, which the moments engine offers
    /// every library (PickerdMoments' `ReflectionPrompts`).
    public static let promptSource = "prompts"
    /// The sources of the items the moments engine derives and stores beside the person's (stays
    /// from photos, the project's prompts). They are never counted as the person's items (status,
    /// stats, the demo's "library already holds", home), and the engine derives them again: the one
    /// rule for "the person's items" is ``isDerived``, and ``Store/personsItemsSQL`` says it in SQL.
    public static let derivedSources: Set<String> = [photoStaySource, promptSource]

    /// Whether the engine derived the item (its ``source`` is one of ``derivedSources``), so that it
    /// is not one of the person's items.
    public var isDerived: Bool { Self.derivedSources.contains(source) }

    /// The item's stable identifier (Apple's `ItemContent.id`).
    public var id: UUID
    /// The asset and all its fields.
    public var asset: Item.Asset
    /// The item's files, indexed by the `fdIndex` of the asset's `Media`.
    public var media: [StoredMedia]
    /// When the item starts, in milliseconds since 1970.
    public var startMs: Int64
    /// When the item ends (equal to ``startMs`` for an instant).
    public var endMs: Int64
    /// Kept in the store but left out of every suggestion (a donating app's choice).
    public var excludedFromSuggestions: Bool
    /// Where the item came from: `demo`, `file` (a source folder), `import`, `listening`, or
    /// `donation:` and the bundle id of the app that donated it (``donationSource(_:)``).
    public var source: String
    /// A donating app's own identifier for the item, empty otherwise.
    public var externalID: String
    /// The offset from UTC of the item's own local time, in seconds, when the data says it (a
    /// photo's EXIF `OffsetTimeOriginal`, a trip's place): days, parts of the day and titles are
    /// reckoned in it. `nil`: the person's time zone.
    public var utcOffsetSeconds: Int32?
    /// Where the item was, when the data says (a photo's GPS): for grouping moments and telling a
    /// trip, never sent to an app (the asset's own fields and files carry what may be released).
    public var coordinate: Coordinate?
    /// The place the item's own file names (a photo's IPTC/XMP location: a sublocation, else a
    /// city), when it names one: the person's data on where it was taken, for naming a stay from
    /// photos. Location, like ``coordinate``: never sent to an app (only a place item the person
    /// keeps may carry a name).
    public var filePlaceName: String?
    /// The city the item's own file names, with ``filePlaceName``.
    public var filePlaceCity: String?
    /// Why the item is recorded but never one of a suggestion's items, if it is not a memory.
    public var notAMemory: NotAMemory?

    /// Creates an item.
    /// - Parameters:
    ///   - id: the stable identifier.
    ///   - asset: the asset.
    ///   - media: the asset's files, by `fdIndex`.
    ///   - startMs: start, ms since 1970.
    ///   - endMs: end, ms since 1970.
    ///   - excludedFromSuggestions: whether suggestions leave it out.
    ///   - source: `demo`, `file`, `import`, `listening`, or ``donationSource(_:)`` of a donating app.
    ///   - externalID: a donating app's identifier.
    ///   - utcOffsetSeconds: the item's own offset from UTC, when the data gives it.
    ///   - coordinate: where it was, when the data says.
    ///   - notAMemory: why it never becomes a suggestion's item (a screenshot, a scan, a burst's extra frame).
    ///   - filePlaceName: the place its file names (a photo's IPTC/XMP location).
    ///   - filePlaceCity: the city its file names.
    public init(id: UUID, asset: Item.Asset, media: [StoredMedia] = [], startMs: Int64, endMs: Int64? = nil,
                excludedFromSuggestions: Bool = false, source: String = "demo", externalID: String = "",
                utcOffsetSeconds: Int32? = nil, coordinate: Coordinate? = nil, notAMemory: NotAMemory? = nil,
                filePlaceName: String? = nil, filePlaceCity: String? = nil) {
        self.id = id
        self.asset = asset
        self.media = media
        self.startMs = startMs
        self.endMs = endMs ?? startMs
        self.excludedFromSuggestions = excludedFromSuggestions
        self.source = source
        self.externalID = externalID
        self.utcOffsetSeconds = utcOffsetSeconds
        self.coordinate = coordinate
        self.notAMemory = notAMemory
        self.filePlaceName = filePlaceName
        self.filePlaceCity = filePlaceCity
    }

    /// The asset type.
    public var kind: AssetKind { AssetKind(asset) }

    /// The wire item (media without descriptors).
    public var wireItem: Item { Item(id: id.text, asset: asset) }
}

/// A point on Earth, in degrees (WGS 84).
public struct Coordinate: Sendable, Hashable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double

    /// Creates a coordinate.
    /// - Parameters:
    ///   - latitude: degrees north, −90…90.
    ///   - longitude: degrees east, −180…180.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The great-circle distance to `other`, in metres.
    public func distance(to other: Coordinate) -> Double {
        let r = 6_371_000.0, rad = Double.pi / 180
        let dLat = (other.latitude - latitude) * rad, dLon = (other.longitude - longitude) * rad
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(latitude * rad) * cos(other.latitude * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }
}

/// Why an item is kept in the library but never becomes one of a suggestion's items: it is not a
/// memory. The importer marks it; the engine leaves it out.
public enum NotAMemory: String, Sendable, Hashable, CaseIterable {
    /// A screenshot (no camera, a Screenshots folder, a screen-sized image).
    case screenshot
    /// A scan: the date is when it was scanned, not when it happened.
    case scan
    /// A frame of a burst, or a near-duplicate of another photo, after the first.
    case burst
    /// An image or video a messaging app saved (WhatsApp's `IMG-…-WA….jpg`, a `Telegram Images`
    /// folder) that carries no camera metadata: someone else's picture, a meme, a forward.
    case messagingImage
    /// An image whose data does not decode to a whole picture (a JPEG cut before its end).
    case undecodable
}

/// A suggestion as the store keeps it: its items by id, in order.
public struct StoredSuggestion: Sendable, Hashable, Identifiable {
    /// The suggestion's stable identifier (a notification's `{journaling-suggestion-id}`).
    public var id: UUID
    /// The title shown in the picker.
    public var title: String
    /// What kind of moment it is.
    public var kind: SuggestionKind
    /// Start of its date range, ms since 1970.
    public var startMs: Int64
    /// End of its date range, ms since 1970.
    public var endMs: Int64
    /// How meaningful the builder judged it; higher ranks first in Recommended.
    public var score: Double
    /// Its items, in display order (at most 13).
    public var itemIDs: [UUID]
    /// The moment's anchor (a workout's or a visit's start, a week's Monday), ms since 1970: the
    /// engine rebuilds a range of days by the moments anchored in it.
    public var anchorMs: Int64
    /// Month × 100 + day of the month it began, in its local time (for "on this day").
    public var monthDay: Int
    /// Its score less what rotation took (shown, released), as the store ranks it; the score
    /// until stored.
    public var rank: Double
    /// Bit `1 << category` for each category of its items (as stored; 0 until stored).
    public var categoryMask: Int64

    /// Creates a suggestion.
    /// - Parameters:
    ///   - id: the stable identifier.
    ///   - title: the title.
    ///   - kind: the kind of moment.
    ///   - startMs: range start, ms since 1970.
    ///   - endMs: range end, ms since 1970.
    ///   - score: the builder's score.
    ///   - itemIDs: the items in order.
    ///   - monthDay: month × 100 + day it began, in its local time (0: unknown).
    ///   - anchorMs: the moment's anchor (by default its start).
    public init(id: UUID, title: String, kind: SuggestionKind, startMs: Int64, endMs: Int64, score: Double, itemIDs: [UUID],
                monthDay: Int = 0, anchorMs: Int64? = nil) {
        self.id = id
        self.title = title
        self.kind = kind
        self.startMs = startMs
        self.endMs = endMs
        self.score = score
        self.itemIDs = itemIDs
        self.monthDay = monthDay
        self.anchorMs = anchorMs ?? startMs
        self.rank = score
        self.categoryMask = 0
    }
}

/// Where the person lives: the place they spend most time at, work aside (the base that tells an
/// outing from time at home, and a trip from a day out).
public struct HomeBase: Sendable, Hashable {
    /// The home place's name ("Home"), if the library has visits.
    public var place: String?
    /// Its city.
    public var city: String?
    /// Where it is.
    public var coordinate: Coordinate?

    /// Creates a home base.
    /// - Parameters:
    ///   - place: the home place's name.
    ///   - city: its city.
    ///   - coordinate: where it is.
    public init(place: String? = nil, city: String? = nil, coordinate: Coordinate? = nil) {
        self.place = place
        self.city = city
        self.coordinate = coordinate
    }

    /// On how many distinct days a square kilometre must hold photos to be taken for home in a library
    /// without visits: one morning's photos somewhere say nothing of where the person lives.
    public static let photoDays = 3

    /// How far from home's centre a visit is still home, in metres.
    public static let homeRadius = 150.0

    /// Whether a visit is to home: home's name and, where both have coordinates, within
    /// ``homeRadius`` of it (a name alone is no identity: the gazetteer names every nameless visit
    /// in a city by the city; and the bar round the corner is not home).
    public func isHome(_ location: Location) -> Bool {
        guard let place, location.place == place else { return false }
        if let home = coordinate, let there = location.location {
            return home.distance(to: Coordinate(latitude: there.latitude, longitude: there.longitude)) <= Self.homeRadius
        }
        return true
    }

    /// Whether `coordinate` is within 1.5 km of home (unknown home: near).
    public func isNear(_ other: Coordinate) -> Bool { coordinate.map { $0.distance(to: other) < 1_500 } ?? true }

    /// Home found in a library held in memory: the place with the longest visits, work aside (a
    /// place being where its visits are, to about 300 m: ``placeCell(_:)``); without visits, the
    /// square kilometre with the most photos among those with photos on ``photoDays`` days or more.
    /// Items the engine derived (stays from photos) count as neither.
    /// - Parameter items: the library.
    /// - Returns: the home base.
    public static func find(in items: [LibraryItem]) -> HomeBase {
        var dwell: [String: (Int64, Location)] = [:]
        var cells: [String: (Int, Coordinate, Set<Int64>)] = [:]
        for item in items where !item.isDerived {
            if case .location(let l) = item.asset, l.isWorkLocation != true {
                dwell[l.location.map { placeCell(Coordinate(latitude: $0.latitude, longitude: $0.longitude)) } ?? l.place, default: (0, l)].0
                    += item.endMs - item.startMs
            } else if let c = item.coordinate {
                let key = "\((c.latitude * 100).rounded()),\((c.longitude * 100).rounded())"
                cells[key, default: (0, c, [])].0 += 1
                cells[key]!.2.insert(item.startMs / 86_400_000)
            }
        }
        if let best = dwell.max(by: { ($0.value.0, $1.key) < ($1.value.0, $0.key) })?.value.1 {
            return HomeBase(place: best.place, city: best.city,
                            coordinate: best.location.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) })
        }
        return HomeBase(coordinate: cells.filter { $0.value.2.count >= photoDays }.max { ($0.value.0, $1.key) < ($1.value.0, $0.key) }?.value.1)
    }

    /// A place's cell for telling places apart by where they are: about 370 m of latitude
    /// (1/300 of a degree), as the store's ``Store/homeBase()`` groups them too.
    public static func placeCell(_ c: Coordinate) -> String {
        "\(Int((c.latitude * 300).rounded())),\(Int((c.longitude * 300).rounded()))"
    }
}

/// One release to an app: what went where, when.
public struct Release: Sendable, Hashable {
    /// The history entry's number.
    public var id: Int64
    /// When it happened, ms since 1970.
    public var timeMs: Int64
    /// The receiving app.
    public var bundleID: String
    /// The app's display name.
    public var appName: String
    /// The suggestion the items came from.
    public var suggestionID: String
    /// The title the app received.
    public var title: String
    /// What was released.
    public var items: [ReleasedItem]
}

extension UUID {
    /// Parses the canonical form ("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", either case) by hand:
    /// Foundation's parser on Linux goes through `sscanf`, which shows in a presentation's profile.
    /// - Parameter text: a UUID string.
    /// - Returns: the UUID, or `nil` when `text` is not one.
    static func parsing(_ text: String) -> UUID? {
        var bytes = [UInt8](repeating: 0, count: 16)
        var index = 0, high = true
        var count = 0
        for c in text.utf8 {
            count += 1
            if c == UInt8(ascii: "-") {
                guard count == 9 || count == 14 || count == 19 || count == 24 else { return nil }
                continue
            }
            let value: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            guard index < 16 else { return nil }
            if high { bytes[index] = value << 4 } else { bytes[index] |= value; index += 1 }
            high.toggle()
        }
        guard count == 36, index == 16 else { return nil }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

extension UUID {
    /// Its canonical form, upper-case, as `uuidString` writes it, formatted by hand: Foundation's
    /// goes through `snprintf`, and an import of a million listens formats each id three times (a
    /// twentieth of its time at 300,000 plays).
    var text: String {
        String(unsafeUninitializedCapacity: 36) { out in write(into: out) }
    }

    /// Hands `body` its canonical form (``text``) in a buffer on the stack, for what copies it.
    func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { out in
            try body(UnsafeBufferPointer(start: out.baseAddress, count: write(into: out)))
        }
    }

    /// Writes its canonical form into `out` (36 bytes at least); returns how many bytes that is.
    private func write(into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        withUnsafeBytes(of: uuid) { bytes in
            let digits: StaticString = "0123456789ABCDEF"
            var at = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[at] = UInt8(ascii: "-")
                    at += 1
                }
                out[at] = digits.utf8Start[Int(byte >> 4)]
                out[at + 1] = digits.utf8Start[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }
}

/// A UUID's 16 bytes as two big-endian words: ordered as its `uuidString` is (fixed-width upper-case
/// hex), without formatting it. Items of the same start are put in this order everywhere; sorting a
/// window's items by their formatted ids was a fifth of an engine build's time at 234,000 listens.
public struct UUIDOrderKey: Comparable, Hashable, Sendable {
    /// The first eight bytes.
    public let high: UInt64
    /// The last eight.
    public let low: UInt64

    /// Whether `a` comes before `b`.
    public static func < (a: UUIDOrderKey, b: UUIDOrderKey) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

extension UUID {
    /// The key its `uuidString` orders by (``UUIDOrderKey``).
    public var orderKey: UUIDOrderKey {
        withUnsafeBytes(of: uuid) { bytes in
            UUIDOrderKey(high: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
                         low: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian)
        }
    }
}
