/// The fourteen asset types of a suggestion item, with the category each belongs to.
public enum AssetKind: String, CaseIterable, Sendable, Hashable, Codable {
    case photo, livePhoto, video, workout, workoutGroup, contact, location, locationGroup
    case song, podcast, motionActivity, genericMedia, reflection, stateOfMind

    /// The settings category that governs this kind: a disabled category hides every item of it.
    public var category: Category {
        switch self {
        case .photo, .livePhoto, .video: .photos
        case .workout, .workoutGroup, .motionActivity: .activity
        case .contact: .contacts
        case .location, .locationGroup: .significantLocations
        case .song, .podcast, .genericMedia: .media
        case .reflection: .reflectionPrompts
        case .stateOfMind: .stateOfMind
        }
    }

    /// The kind of a wire asset.
    /// - Parameter asset: an item's asset.
    public init(_ asset: Item.Asset) {
        switch asset {
        case .photo: self = .photo
        case .livePhoto: self = .livePhoto
        case .video: self = .video
        case .workout: self = .workout
        case .workoutGroup: self = .workoutGroup
        case .contact: self = .contact
        case .location: self = .location
        case .locationGroup: self = .locationGroup
        case .song: self = .song
        case .podcast: self = .podcast
        case .motionActivity: self = .motionActivity
        case .genericMedia: self = .genericMedia
        case .reflection: self = .reflection
        case .stateOfMind: self = .stateOfMind
        }
    }
}
