public import PickerdWire

/// One thing "Hide this suggestion" or "Show fewer like this" may hide, as a picker offers it.
public struct HideOption: Sendable, Hashable {
    /// What kind of thing it is.
    public var target: HideTarget
    /// A contact's name (``HideTarget/person``).
    public var person = ""
    /// One of the suggestion's visits (``HideTarget/place``): pickerd hides its place.
    public var placeItemID = ""
    /// What the picker shows: "Maya Okafor", "Strand Book Store", "These days (Tue 5 Mar)".
    public var label: String

    /// The options of "Show fewer like this" for `suggestion`: each of its people, each named place
    /// of its visits, and its days, in that order.
    /// - Parameter suggestion: the suggestion under review.
    /// - Returns: the options (at least its days).
    public static func fewer(_ suggestion: Suggestion) -> [HideOption] {
        var options: [HideOption] = []
        var seen = Set<String>()
        for item in suggestion.items {
            if case .contact(let c)? = item.asset, !c.name.isEmpty, seen.insert("p:" + c.name).inserted {
                options.append(HideOption(target: .person, person: c.name, label: c.name))
            }
        }
        for item in suggestion.items {
            if case .location(let l)? = item.asset, l.location != nil, !l.place.isEmpty, seen.insert("l:" + l.place).inserted {
                options.append(HideOption(target: .place, placeItemID: item.id, label: l.place))
            }
        }
        options.append(HideOption(target: .days, label: "These days (\(PickerWords.range(of: suggestion)))"))
        return options
    }

    /// "Hide this suggestion".
    public static let suggestion = HideOption(target: .suggestion, label: PickerWords.hideSuggestion)
}

extension PickerWords {
    /// The action that hides the suggestion under review.
    public static let hideSuggestion = "Hide this suggestion"
    /// The action that offers its people, its place and its days.
    public static let showFewer = "Show fewer like this"
    /// What hiding does, in one line.
    public static let hideExplanation = "Hidden things never come back in suggestions: nothing is deleted, and you can undo it now, or later with pickerctl hidden."
    /// What "Show fewer like this" asks.
    public static let fewerExplanation = "Leave out of your suggestions:"
    /// The undo after a hide.
    public static let undo = "Undo"
    /// The action that names one of the suggestion's places.
    public static let namePlace = "Name this place"
    /// What naming a place does, in one line.
    public static let namePlaceExplanation = "Every suggestion will call this place by your name. Change it later with pickerctl places."
    /// A place with neither a name nor a city.
    public static let thisPlace = "This place"
    /// What the picker says once pickerd named it.
    public static func placeNamed(_ name: String) -> String { "Called “\(name)” from now on" }
}
