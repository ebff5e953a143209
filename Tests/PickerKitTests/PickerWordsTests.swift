import Foundation
@testable import PickerKit
import PickerdWire
import Testing

/// The words both pickers show: kinds, counts, dates and their zones, wrapping, the fixed sentences.
@Suite("PickerWords: what every picker says")
struct PickerWordsTests {
    /// Midnight of 5 November 2026 in New York, 05:00 UTC: a Thursday.
    static let morning: Int64 = 1_793_854_800_000
    /// Nepal's offset (UTC+5:45): a zone no test machine is likely to be in, so the local-time
    /// words show (they show only when the item's zone is not the picker's own).
    static let nepal: Int64 = 5 * 3_600 + 45 * 60

    static func photo(_ id: String) -> Item { Item(id: id, asset: .photo(Photo(photo: Media(filename: "\(id).jpg")))) }
    static func song(_ id: String) -> Item { Item(id: id, asset: .song(Song(song: "Northbound", artist: "Kestrel & Fig", album: "Paper Maps"))) }

    @Test("contents counts each kind once, in the order it first appears, with plural nouns")
    func contents() {
        let items = [Self.photo("a"), Self.song("s"), Self.photo("b")]
        #expect(PickerWords.contents(items) == "▣ 2 photos  ♪ 1 song")
    }

    @Test("an item of a kind this picker does not know is a plain Item with a dot")
    func unknownKind() {
        let item = Item(id: "x", asset: nil)
        #expect(PickerWords.kindLabel(item) == "Item")
        #expect(PickerWords.glyph(item) == "•")
        #expect(PickerWords.contents([item, item]) == "• 2 items")
    }

    @Test("a kind is labelled as the carousel names it")
    func kindLabel() {
        #expect(PickerWords.kindLabel(Item(id: "l", asset: .livePhoto(LivePhoto()))) == "Live Photo")
        #expect(PickerWords.glyph(Self.photo("p")) == "▣")
    }

    @Test("no date, or the zero instant, says nothing")
    func noDate() {
        #expect(PickerWords.date(nil) == "")
        #expect(PickerWords.date(Timestamp(unixMs: 0)) == "")
    }

    @Test("a date is the weekday, day, month and time in the local time where it happened")
    func dateElsewhere() {
        #expect(PickerWords.date(Timestamp(unixMs: Self.morning), utcOffsetSeconds: 9 * 3_600) == "Thu 5 Nov, 14:00")
    }

    @Test("a range within one day says the day once, and marks a zone not the picker's")
    func sameDayRange() throws {
        try #require(TimeZone.current.secondsFromGMT(for: Date(unixMs: Self.morning)) != Int(Self.nepal))
        let interval = PickerdWire.DateInterval(startUnixMs: Self.morning, endUnixMs: Self.morning + 90 * 60_000)
        #expect(PickerWords.range(interval, utcOffsetSeconds: Self.nepal) == "Thu 5 Nov, 10:45–12:15 local time (UTC+5:45)")
    }

    @Test("a range over two days says both days")
    func twoDayRange() throws {
        try #require(TimeZone.current.secondsFromGMT(for: Date(unixMs: Self.morning)) != Int(Self.nepal))
        let interval = PickerdWire.DateInterval(startUnixMs: Self.morning, endUnixMs: Self.morning + 86_400_000)
        #expect(PickerWords.range(interval, utcOffsetSeconds: Self.nepal) == "Thu 5 Nov, 10:45 – Fri 6 Nov, 10:45 local time (UTC+5:45)")
    }

    @Test("a suggestion's range is its date in its own local time")
    func suggestionRange() throws {
        try #require(TimeZone.current.secondsFromGMT(for: Date(unixMs: Self.morning)) != Int(Self.nepal))
        let suggestion = Suggestion(id: "s", title: "t", date: PickerdWire.DateInterval(startUnixMs: Self.morning, endUnixMs: Self.morning),
                                    localUtcOffsetS: Self.nepal)
        #expect(PickerWords.range(of: suggestion) == "Thu 5 Nov, 10:45 local time (UTC+5:45)")
    }

    @Test("no interval says nothing")
    func noRange() {
        #expect(PickerWords.range(nil) == "")
    }

    @Test("offsets are named UTC, UTC+9, UTC−3:30 (a real minus sign)")
    func offsetNames() {
        #expect(PickerWords.offsetName(0) == "UTC")
        #expect(PickerWords.offsetName(9 * 3_600) == "UTC+9")
        #expect(PickerWords.offsetName(-(3 * 3_600 + 30 * 60)) == "UTC−3:30")
    }

    @Test("wrap breaks between words at the width")
    func wrap() {
        #expect(PickerWords.wrap("the quick brown fox", 9) == ["the quick", "brown fox"])
    }

    @Test("wrap leaves a word longer than a line whole, and an empty text one empty line")
    func wrapEdges() {
        #expect(PickerWords.wrap("a /home/someone/Pictures b", 8) == ["a", "/home/someone/Pictures", "b"])
        #expect(PickerWords.wrap("", 10) == [""])
    }

    @Test("a width of four or less is no width: the text stays one line")
    func wrapNarrow() {
        #expect(PickerWords.wrap("one two three", 4) == ["one two three"])
    }

    @Test("wrapBreakingWords cuts a word longer than a line across lines")
    func wrapBreakingWords() {
        #expect(PickerWords.wrapBreakingWords("/a/very/long/path", 6) == ["/a/ver", "y/long", "/path"])
    }

    @Test("a song's details name its album")
    func songDetails() {
        let lines = PickerWords.details(Self.song("s"))
        #expect(lines == ["Northbound by Kestrel & Fig", "album Paper Maps"])
    }

    @Test("the picture of a song is its artwork, of a place none")
    func imageMedia() {
        let artwork = Media(contentType: "image/png", filename: "cover.png")
        #expect(PickerWords.imageMedia(Item(id: "s", asset: .song(Song(song: "x", artwork: artwork)))) == artwork)
        #expect(PickerWords.imageMedia(Item(id: "l", asset: .location(Location(place: "Home")))) == nil)
    }

    @Test("the consent sheet names each category")
    func categoryLabels() {
        #expect(PickerWords.categoryLabel(.photos) == "Photos and videos")
        #expect(PickerWords.categoryLabel(.activity) == "Activity (workouts, steps)")
    }

    @Test("the approval asks of a Flatpak app as a Flatpak app")
    func approvalText() {
        #expect(PickerWords.approvalText(app: "Journal", kind: .flatpak)
            == "Journal is a Flatpak app that the system has not allowed to show journaling suggestions.")
    }

    @Test("the empty-library sentence is pickerd's, word for word")
    func emptyLibrary() {
        #expect(PickerWords.emptyLibrary == ReviewRequest.emptyLibrarySentence)
        #expect(PickerWords.emptyLibrary
            == "pickerd has no data yet: add your photos with `pickerctl sources add ~/Pictures`, and exports (Google Takeout, Strava, Garmin…) with `pickerctl import PATH`.")
    }
}

@Suite("HideOption: what Show fewer like this offers")
struct HideOptionTests {
    @Test("people first, then named places, then the days; each name once")
    func fewer() {
        let suggestion = Suggestion(id: "s", title: "t", date: PickerdWire.DateInterval(startUnixMs: PickerWordsTests.morning, endUnixMs: PickerWordsTests.morning),
                                    items: [
                                        Item(id: "l1", asset: .location(Location(place: "Strand Book Store", location: GeoLocation()))),
                                        Item(id: "c1", asset: .contact(Contact(name: "Maya Okafor"))),
                                        Item(id: "c2", asset: .contact(Contact(name: "Maya Okafor"))),
                                        Item(id: "l2", asset: .location(Location(place: "No coordinates"))),
                                    ], localUtcOffsetS: 9 * 3_600)
        let options = HideOption.fewer(suggestion)
        #expect(options.map(\.label) == ["Maya Okafor", "Strand Book Store", "These days (\(PickerWords.range(of: suggestion)))"])
        #expect(options.map(\.target) == [.person, .place, .days])
        #expect(options[1].placeItemID == "l1")
    }
}
