public import Foundation
public import PickerdWire

/// A media file the store holds for an item, in the store's private media directory.
public struct StoredMedia: Sendable, Hashable {
    /// The file's path relative to the media directory. Never sent to a client.
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

    /// Creates a media record.
    /// - Parameters:
    ///   - relativePath: the path below the media directory.
    ///   - contentType: a MIME type.
    ///   - filename: the offered file name.
    ///   - byteCount: the size in bytes.
    ///   - pixelWidth: width in pixels, 0 when not an image.
    ///   - pixelHeight: height in pixels, 0 when not an image.
    public init(relativePath: String, contentType: String, filename: String, byteCount: UInt64,
                pixelWidth: UInt32 = 0, pixelHeight: UInt32 = 0) {
        self.relativePath = relativePath
        self.contentType = contentType
        self.filename = filename
        self.byteCount = byteCount
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
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
    /// Where the item came from: `demo`, or the bundle id of the app that donated it.
    public var source: String
    /// A donating app's own identifier for the item, empty otherwise.
    public var externalID: String

    /// Creates an item.
    /// - Parameters:
    ///   - id: the stable identifier.
    ///   - asset: the asset.
    ///   - media: the asset's files, by `fdIndex`.
    ///   - startMs: start, ms since 1970.
    ///   - endMs: end, ms since 1970.
    ///   - excludedFromSuggestions: whether suggestions leave it out.
    ///   - source: `demo` or a donating app's bundle id.
    ///   - externalID: a donating app's identifier.
    public init(id: UUID, asset: Item.Asset, media: [StoredMedia] = [], startMs: Int64, endMs: Int64? = nil,
                excludedFromSuggestions: Bool = false, source: String = "demo", externalID: String = "") {
        self.id = id
        self.asset = asset
        self.media = media
        self.startMs = startMs
        self.endMs = endMs ?? startMs
        self.excludedFromSuggestions = excludedFromSuggestions
        self.source = source
        self.externalID = externalID
    }

    /// The asset type.
    public var kind: AssetKind { AssetKind(asset) }

    /// The wire item (media without descriptors).
    public var wireItem: Item { Item(id: id.uuidString, asset: asset) }
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

    /// Creates a suggestion.
    /// - Parameters:
    ///   - id: the stable identifier.
    ///   - title: the title.
    ///   - kind: the kind of moment.
    ///   - startMs: range start, ms since 1970.
    ///   - endMs: range end, ms since 1970.
    ///   - score: the builder's score.
    ///   - itemIDs: the items in order.
    public init(id: UUID, title: String, kind: SuggestionKind, startMs: Int64, endMs: Int64, score: Double, itemIDs: [UUID]) {
        self.id = id
        self.title = title
        self.kind = kind
        self.startMs = startMs
        self.endMs = endMs
        self.score = score
        self.itemIDs = itemIDs
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
