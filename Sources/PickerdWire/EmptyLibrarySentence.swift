extension ReviewRequest {
    /// What every picker shows for a review whose ``libraryEmpty`` is set (pickerd holds no
    /// suggestions at all), what pickerd logs once then, and what `pickerctl doctor` prints: one
    /// sentence, the same everywhere. It lives beside the flag it answers, in the wire module both
    /// sides link, so pickerd says the pickers' words without linking the pickers' PickerKit.
    public static let emptyLibrarySentence =
        "pickerd has no data yet: add your photos with `pickerctl sources add ~/Pictures`, and exports (Google Takeout, Strava, Garmin…) with `pickerctl import PATH`."
}
