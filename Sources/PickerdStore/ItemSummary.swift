import PickerdWire

extension LibraryItem {
    /// A one-line description for the release history ("Harbor Lights by The Tideline").
    public var summary: String { asset.summary }
}
