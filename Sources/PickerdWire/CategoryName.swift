extension Category {
    /// Every settings category a person can turn on or off, in display order.
    public static let settable: [Category] = [.activity, .media, .contacts, .photos, .significantLocations, .reflectionPrompts, .stateOfMind]

    /// The category's name on command lines and in agent scripts ("significant-locations").
    public var settingName: String {
        switch self {
        case .activity: "activity"
        case .media: "media"
        case .contacts: "contacts"
        case .photos: "photos"
        case .significantLocations: "significant-locations"
        case .reflectionPrompts: "reflection-prompts"
        case .stateOfMind: "state-of-mind"
        default: "\(self)"
        }
    }
}
