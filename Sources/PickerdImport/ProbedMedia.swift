public import PickerdStore

/// What the importer read from one photo or video file: its metadata, never its pixels.
public struct ProbedMedia: Sendable, Hashable {
    /// Whether the file is a still or a moving image.
    public enum Kind: String, Sendable, Hashable {
        /// A still image (JPEG, HEIC/HEIF, PNG, TIFF).
        case photo
        /// A video (QuickTime MOV, MP4).
        case video
        /// No media: a Google Photos Takeout sidecar (the JSON beside a photo), whose time, place
        /// and people are the photo's where its own metadata lacks them.
        case sidecar
    }

    /// A still or a video.
    public var kind: Kind
    /// A MIME type from the file's content (`image/jpeg`, `image/heic`, `image/png`, `image/tiff`,
    /// `image/avif`, `image/webp`, `image/jxl`, `video/quicktime`, `video/mp4`), never from its name.
    public var contentType: String
    /// When it was taken, ms since 1970: EXIF `DateTimeOriginal` read in `OffsetTimeOriginal` (or
    /// the person's time zone when the file has no offset), a video's QuickTime creation date.
    public var takenAtMs: Int64?
    /// The offset from UTC the file states (`OffsetTimeOriginal`, a QuickTime date's offset).
    public var utcOffsetSeconds: Int32?
    /// EXIF `DateTimeDigitized` or IFD0 `DateTime`, ms since 1970, when different from the taking
    /// date (a scan's date is when it was digitized).
    public var digitizedAtMs: Int64?
    /// Where it was taken (EXIF GPS, QuickTime ISO 6709 location).
    public var coordinate: Coordinate?
    /// The camera's maker (EXIF `Make`, QuickTime `com.apple.quicktime.make`).
    public var make: String?
    /// The camera's model.
    public var model: String?
    /// The software that wrote it (EXIF `Software`): a scanning or screenshot tool says so here.
    public var software: String?
    /// Whether the file records an exposure (`ExposureTime` or `FNumber`): a camera took it.
    public var hasExposure: Bool
    /// EXIF orientation, 1…8 (1 when absent): how to turn the stored pixels upright. For a video,
    /// its display matrix as an orientation (a quarter turn clockwise is 6, a half turn 3, a quarter
    /// turn counter-clockwise 8; a flip is ignored). For a HEIC always 1: libheif applies the file's
    /// own rotation (`irot`/`imir`, which takes precedence over EXIF's in HEIF) when decoding.
    public var orientation: Int
    /// Width in pixels as stored (before orientation; for a HEIC, as libheif presents it, with its
    /// `irot` applied). A JPEG's from its frame header, a PNG's from IHDR, a TIFF's from IFD0, else
    /// EXIF `PixelXDimension`.
    public var pixelWidth: UInt32
    /// Height in pixels as stored.
    public var pixelHeight: UInt32
    /// A video's duration in ms.
    public var durationMs: Int64?
    /// Apple's Live Photo pairing key: the still's MakerNote MediaGroupUUID (Apple tag 0x0011), or
    /// the clip's `com.apple.quicktime.content.identifier`.
    public var contentIdentifier: String?
    /// Apple's MakerNote BurstUUID (tag 0x000B): the frames of one burst share it.
    public var burstIdentifier: String?
    /// Whether the image data ends before the image does: a JPEG cut inside its entropy-coded data
    /// (no end-of-image marker is reached), whose metadata is whole but whose picture is not. Such
    /// a file is indexed but is not a memory (``NotAMemory/undecodable``).
    public var imageDataEndsEarly: Bool
    /// A still's difference hash (64 bits from its picture made 9×8 and grey), for telling
    /// near-duplicates (``NotAMemoryRules/bursts(_:)``); `nil` for a video, or when the picture does
    /// not decode or was not hashed.
    public var pictureHash: UInt64?

    /// Creates a record; every optional field starts unknown.
    /// - Parameters:
    ///   - kind: a still or a video.
    ///   - contentType: the MIME type from the content.
    public init(kind: Kind, contentType: String) {
        self.kind = kind
        self.contentType = contentType
        self.hasExposure = false
        self.imageDataEndsEarly = false
        self.orientation = 1
        self.pixelWidth = 0
        self.pixelHeight = 0
    }
}

/// Why a file could not be read.
public struct ProbeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: String, Sendable, Hashable {
        /// Not a photo or video format pickerd reads (by content).
        case unsupported
        /// It could not be opened or read (permissions, I/O, a vanished file).
        case unreadable
        /// It claims a supported format but its structure is broken (truncated, corrupt).
        case corrupt
    }

    /// The kind.
    public var kind: Kind
    /// A sentence for the log and `pickerctl sources list`.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}
