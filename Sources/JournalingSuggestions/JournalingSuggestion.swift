public import Foundation

/// A moment the person chose to share with the app: a title, a date range and the items they kept.
public struct JournalingSuggestion: Sendable {
    /// The title (possibly edited by the person).
    public var title: String
    /// The span of time the suggestion covers.
    public var date: DateInterval?
    /// The items the person approved, in order.
    public var items: [ItemContent]

    /// Every item's content of one type.
    /// - Parameter type: the asset type, such as `JournalingSuggestion.Photo.self`.
    /// - Returns: the contents of that type, in item order.
    public func content<Content: JournalingSuggestionAsset>(forType type: Content.Type) async -> [Content] {
        items.compactMap { $0.value(as: type) }
    }
}

/// One approved item (Apple's `ItemContent`): an identifier and its content in one or more
/// representations.
public struct ItemContent: Sendable, Identifiable {
    /// The item's stable identifier.
    public var id: UUID
    let assets: [any JournalingSuggestionAsset]

    /// The offset from UTC, in seconds east, of the local time where the item happened (a photo's
    /// own offset, else its place's time zone at that instant): `32400` for a Kyoto afternoon, so
    /// its `date` reads 14:01 as it was lived there. `nil` unless the person kept a place of the
    /// suggestion (an offset tells a region), or when pickerd does not know it. Not in Apple's API.
    public var secondsFromGMT: Int?

    /// ``secondsFromGMT`` as a fixed-offset time zone, for a `DateFormatter` or `Date.FormatStyle`:
    /// the item's local time, or `nil` (then show the app's own time zone).
    public var timeZone: TimeZone? { secondsFromGMT.flatMap(TimeZone.init(secondsFromGMT:)) }

    /// The types this item can be read as (an image-bearing asset also as a generic image).
    public var representations: [any JournalingSuggestionAsset.Type] { assets.map { type(of: $0) } }

    /// Whether the item can be read as `type`.
    /// - Parameter type: an asset type.
    /// - Returns: `true` when ``content(forType:)`` returns a value for it.
    public func hasContent<Content: JournalingSuggestionAsset>(ofType type: Content.Type) -> Bool {
        value(as: type) != nil
    }

    /// The item's content as `type`.
    /// - Parameter type: an asset type.
    /// - Returns: the content, or `nil` when the item is not of that type.
    /// - Throws: never today; kept for Apple's signature.
    public func content<Content: JournalingSuggestionAsset>(forType type: Content.Type) async throws -> Content? {
        value(as: type)
    }

    func value<Content: JournalingSuggestionAsset>(as type: Content.Type) -> Content? {
        assets.lazy.compactMap { $0 as? Content }.first
    }
}

/// A reference to a suggestion, from a notification's URL, that opens the picker on it (Apple's
/// `JournalingSuggestionPresentationToken`). The person still reviews and confirms.
public struct JournalingSuggestionPresentationToken: Sendable, Hashable {
    /// The suggestion's identifier, or `nil` for a general reminder.
    public var suggestionIdentifier: UUID?

    /// Creates a token.
    /// - Parameter suggestionIdentifier: the suggestion's identifier, or `nil` for none.
    public init(suggestionIdentifier: UUID?) {
        self.suggestionIdentifier = suggestionIdentifier
    }
}

extension JournalingSuggestionPresentationToken {
    /// The token a notification URL carries: the app's `JSNotificationURLFormat` with
    /// `{journaling-suggestion-id}` replaced, in path form (`myapp://suggestions/<id>`) or query form
    /// (`myapp://open?suggestion=<id>`). An empty id is a general reminder.
    /// - Parameters:
    ///   - url: the URL the app was opened with.
    ///   - format: the app's `JSNotificationURLFormat`, if known; it says where the id sits. Without
    ///     it, the last path component or a query value is taken.
    /// - Returns: the token, or `nil` when the URL does not match the format or its id is not a UUID.
    public init?(url: URL, format: String? = nil) {
        let placeholder = "{journaling-suggestion-id}"
        var candidate: String?
        if let format, let range = format.range(of: placeholder) {
            let prefix = String(format[..<range.lowerBound]), suffix = String(format[range.upperBound...])
            let text = url.absoluteString
            guard text.hasPrefix(prefix), text.hasSuffix(suffix), text.count >= prefix.count + suffix.count else { return nil }
            candidate = String(text.dropFirst(prefix.count).dropLast(suffix.count)).removingPercentEncoding
        } else if let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            if let items = components.queryItems, !items.isEmpty {
                candidate = items.first { UUID(uuidString: $0.value ?? "") != nil }?.value ?? items.first { ($0.value ?? "").isEmpty }.map { _ in "" }
            } else {
                candidate = components.path.hasSuffix("/") ? "" : components.path.split(separator: "/").last.map(String.init) ?? ""
            }
        }
        guard let candidate else { return nil }
        if candidate.isEmpty {
            self.init(suggestionIdentifier: nil)
        } else if let id = UUID(uuidString: candidate) {
            self.init(suggestionIdentifier: id)
        } else {
            return nil
        }
    }
}
