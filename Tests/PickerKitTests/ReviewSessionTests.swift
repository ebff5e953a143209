import Foundation
import PickerKit
import PickerdTransport
import PickerdWire
import Testing

/// A session on one end of a socket pair, pickerd on the other: what the session sends is read
/// there, and pickerd's answers are sent from there and received as a picker receives them.
final class Pair {
    let session: ReviewSession
    let picker: FrameConnection
    let pickerd: FrameConnection

    init() throws {
        (picker, pickerd) = try UnixSocket.pair()
        session = ReviewSession(connection: picker)
    }

    /// What the session sent last (it has sent it: its sends return once written).
    func sent() throws -> Envelope { try #require(try pickerd.receive()).envelope }

    /// pickerd's answer to request `id`, through the session.
    func answer(_ id: UInt64, _ body: Envelope.Body) throws -> ReviewSession.Answer {
        try pickerd.send(Envelope(requestId: id, body: body))
        return session.answer(try #require(try picker.receive()))
    }
}

@Suite("ReviewSession: one presentation's state and answers", .serialized)
struct ReviewSessionTests {
    static func suggestion(_ id: String, items: Int = 3) -> Suggestion {
        Suggestion(id: id, title: "Title \(id)", items: (0..<items).map { Item(id: "\(id)-\($0)", asset: .photo(Photo())) })
    }

    static func lists(recommended: Int, recommendedTotal: UInt32 = 0, recent: Int = 0, libraryEmpty: Bool = false) -> ReviewRequest {
        ReviewRequest(sessionHandle: "h", appDisplayName: "Journal", recommended: (0..<recommended).map { suggestion("r\($0)") },
                      recent: (0..<recent).map { suggestion("n\($0)") }, recommendedTotal: recommendedTotal, libraryEmpty: libraryEmpty)
    }

    @Test("a review for an app not yet allowed begins with the approval, before consent")
    func approvalFirst() throws {
        let pair = try Pair()
        #expect(pair.session.begin(ReviewRequest(consentNeeded: true, appApprovalNeeded: true), id: 1) == .approval)
    }

    @Test("a review that needs consent begins with the consent sheet")
    func consentFirst() throws {
        let pair = try Pair()
        #expect(pair.session.begin(ReviewRequest(consentNeeded: true), id: 1) == .consent)
    }

    @Test("a review begins with the lists: the first pages, and totals never below what arrived")
    func lists() throws {
        let pair = try Pair()
        #expect(pair.session.begin(Self.lists(recommended: 2, recommendedTotal: 120, recent: 1), id: 1) == .lists)
        #expect(pair.session.loaded.map(\.count) == [2, 1])
        #expect(pair.session.totals == [120, 1])
    }

    @Test("empty lists say why: an empty library, or categories that hide everything; lists with suggestions say nothing")
    func emptyListsReason() throws {
        let pair = try Pair()
        _ = pair.session.begin(Self.lists(recommended: 0, libraryEmpty: true), id: 1)
        #expect(pair.session.emptyListsReason == PickerWords.emptyLibrary)
        _ = pair.session.begin(Self.lists(recommended: 0), id: 2)
        #expect(pair.session.emptyListsReason == PickerWords.everySuggestionHidden)
        _ = pair.session.begin(Self.lists(recommended: 1), id: 3)
        #expect(pair.session.emptyListsReason == nil)
    }

    @Test("the add button is the app's title, else Add to the app")
    func addTitle() throws {
        let pair = try Pair()
        _ = pair.session.begin(ReviewRequest(appDisplayName: "Journal"), id: 1)
        #expect(pair.session.addTitle == "Add to Journal")
        _ = pair.session.begin(ReviewRequest(appDisplayName: "Journal", buttonTitle: "Write about it"), id: 2)
        #expect(pair.session.addTitle == "Write about it")
    }

    @Test("the banner shows while pickerd asks for it and the person has not dismissed it")
    func banner() throws {
        let pair = try Pair()
        _ = pair.session.begin(ReviewRequest(showPrivacyBanner: true), id: 1)
        #expect(pair.session.showsBanner)
        pair.session.bannerDismissed = true
        #expect(!pair.session.showsBanner)
    }

    @Test("the preloaded suggestion opens only when its id is the one the token named")
    func preloaded() throws {
        let pair = try Pair()
        _ = pair.session.begin(ReviewRequest(preloadedSuggestionId: "a", preloaded: Self.suggestion("a")), id: 1)
        #expect(pair.session.preloaded?.id == "a")
        _ = pair.session.begin(ReviewRequest(preloadedSuggestionId: "b", preloaded: Self.suggestion("a")), id: 2)
        #expect(pair.session.preloaded == nil)
    }

    @Test("loadMore asks for the page after what arrived, once at a time, and the page is appended")
    func paging() throws {
        let pair = try Pair()
        _ = pair.session.begin(Self.lists(recommended: 2, recommendedTotal: 3), id: 1)
        #expect(pair.session.loadMore(.recommended))
        let request = try pair.sent()
        #expect(request.body == .suggestionsPage(SuggestionsPageRequest(sessionHandle: "h", list: .recommended, offset: 2, limit: 50)))
        #expect(!pair.session.loadMore(.recommended), "a page of that list is on its way")
        let page = SuggestionsPageReply(list: .recommended, offset: 2, suggestions: [Self.suggestion("r2")], total: 3)
        guard case .page(.recommended) = try pair.answer(request.requestId, .suggestionsPageReply(page)) else {
            Issue.record("the page was not taken")
            return
        }
        #expect(pair.session.loaded[0].map(\.id) == ["r0", "r1", "r2"])
        #expect(!pair.session.loadMore(.recommended), "the list is whole")
    }

    @Test("a page that does not continue the list is dropped")
    func stalePage() throws {
        let pair = try Pair()
        _ = pair.session.begin(Self.lists(recommended: 2, recommendedTotal: 5), id: 1)
        pair.session.loadMore(.recommended)
        let request = try pair.sent()
        let page = SuggestionsPageReply(list: .recommended, offset: 0, suggestions: [Self.suggestion("x")], total: 5)
        guard case .none = try pair.answer(request.requestId, .suggestionsPageReply(page)) else {
            Issue.record("a page at the wrong offset was taken")
            return
        }
        #expect(pair.session.loaded[0].map(\.id) == ["r0", "r1"])
    }

    @Test("opening a suggestion keeps every item and its title")
    func open() throws {
        let pair = try Pair()
        pair.session.open(Self.suggestion("a"))
        #expect(pair.session.kept == [true, true, true])
        #expect(pair.session.title == "Title a")
        #expect(!pair.session.titleEdited)
    }

    @Test("approving sends the kept items' ids and an edited title, on the review's request id")
    func approve() throws {
        let pair = try Pair()
        _ = pair.session.begin(Self.lists(recommended: 1), id: 7)
        pair.session.open(Self.suggestion("a"))
        pair.session.setKept(1, false)
        pair.session.setTitle("  A walk  ")
        pair.session.approve()
        let sent = try pair.sent()
        #expect(sent.requestId == 7)
        let approval = Approval(suggestionId: "a", keptItemIds: ["a-0", "a-2"], titleEdited: true, title: "A walk")
        #expect(sent.body == .reviewDecision(ReviewDecision(sessionHandle: "h", decision: .approve(approval))))
    }

    @Test("a blank title leaves the title as it was")
    func blankTitle() throws {
        let pair = try Pair()
        pair.session.open(Self.suggestion("a"))
        pair.session.setTitle("   ")
        #expect(pair.session.title == "Title a")
        #expect(!pair.session.titleEdited)
    }

    @Test("a title edited back to the suggestion's own is not an edit")
    func titleBack() throws {
        let pair = try Pair()
        pair.session.open(Self.suggestion("a"))
        pair.session.setTitle("Other")
        pair.session.setTitle("Title a")
        #expect(!pair.session.titleEdited)
    }

    @Test("cancelling sends a cancel with the banner's state")
    func cancel() throws {
        let pair = try Pair()
        _ = pair.session.begin(Self.lists(recommended: 1), id: 9)
        pair.session.bannerDismissed = true
        pair.session.cancel()
        let sent = try pair.sent()
        #expect(sent.body == .reviewDecision(ReviewDecision(sessionHandle: "h", privacyBannerDismissed: true, decision: .cancel(Cancelled()))))
    }

    @Test("an item pickerd cannot add is left out, says why, and cannot be kept again")
    func unavailable() throws {
        let pair = try Pair()
        _ = pair.session.begin(Self.lists(recommended: 1), id: 1)
        pair.session.open(Self.suggestion("a"))
        pair.session.fetchMedia("a-1")
        let request = try pair.sent()
        #expect(pair.session.fetchingMedia)
        let answer = try pair.answer(request.requestId, .fetchMediaReply(FetchMediaReply(itemId: "a-1", unavailable: "IMG_1.HEIC is no longer there")))
        guard case .media(let itemID, let files, let reason) = answer else {
            Issue.record("not a media answer: \(answer)")
            return
        }
        #expect(itemID == "a-1")
        #expect(reason == "IMG_1.HEIC is no longer there")
        #expect(files.isEmpty)
        #expect(!pair.session.fetchingMedia)
        #expect(pair.session.kept == [true, false, true])
        #expect(pair.session.setKept(1, true) == "IMG_1.HEIC is no longer there")
        #expect(pair.session.kept[1] == false)
    }

    @Test("a refused media request is reported with its item")
    func refusedMedia() throws {
        let pair = try Pair()
        pair.session.open(Self.suggestion("a"))
        pair.session.fetchMedia("a-0")
        let request = try pair.sent()
        guard case .refused(let message, let itemID) = try pair.answer(request.requestId, .error(ErrorInfo(code: .notFound, message: "no such item"))) else {
            Issue.record("the refusal was not reported")
            return
        }
        #expect(message == "no such item")
        #expect(itemID == "a-0")
        #expect(!pair.session.fetchingMedia)
    }

    @Test("a replaced reflection prompt takes the new item and title, unless the person edited the title")
    func cyclePrompt() throws {
        let pair = try Pair()
        var chosen = Self.suggestion("a", items: 1)
        chosen.items[0] = Item(id: "p", asset: .reflection(Reflection(prompt: "first")))
        pair.session.open(chosen)
        #expect(pair.session.cyclePrompt(0))
        let request = try pair.sent()
        let next = Item(id: "p2", asset: .reflection(Reflection(prompt: "second")))
        guard case .prompt(0) = try pair.answer(request.requestId, .cyclePromptReply(CyclePromptReply(item: next, title: "New title"))) else {
            Issue.record("the prompt was not replaced")
            return
        }
        #expect(pair.session.suggestion.items[0] == next)
        #expect(pair.session.title == "New title")
    }

    @Test("only a reflection prompt can be cycled")
    func cycleNotPrompt() throws {
        let pair = try Pair()
        pair.session.open(Self.suggestion("a"))
        #expect(!pair.session.cyclePrompt(0))
    }

    @Test("Name this place: only visits with a place are offered, each place once; the request names the visit, and the reply renames it and the title in the review and the lists")
    func namePlace() throws {
        let pair = try Pair()
        var request = Self.lists(recommended: 2)
        let at = GeoLocation(latitude: 40.7336, longitude: -74.0027)
        request.recommended[1].items = [
            Item(id: "photo", asset: .photo(Photo())),
            Item(id: "visit", asset: .location(Location(place: "Via Carota", city: "New York", location: at))),
            Item(id: "again", asset: .location(Location(place: "Via Carota", city: "New York", location: at))),
            Item(id: "nowhere", asset: .location(Location(place: "Somewhere"))),
        ]
        _ = pair.session.begin(request, id: 1)
        pair.session.open(pair.session.loaded[0][1])
        #expect(pair.session.nameablePlaces.map(\.index) == [1] && pair.session.nameablePlaces.first?.label == "Via Carota")
        #expect(!pair.session.namePlace(0, "Nonna's"), "a photo is no place")
        #expect(!pair.session.namePlace(3, "Nonna's"), "a visit with no coordinate cannot be named")
        #expect(!pair.session.namePlace(1, "   "), "a blank name is not sent")
        #expect(pair.session.namePlace(1, "  Nonna's "))
        let sent = try pair.sent()
        guard case .namePlace(let asked)? = sent.body else {
            Issue.record("sent \(String(describing: sent.body))")
            return
        }
        #expect(asked == NamePlaceRequest(sessionHandle: "h", suggestionId: "r1", placeItemId: "visit", name: "Nonna's"))
        let renamed = Item(id: "visit", asset: .location(Location(place: "Nonna's", city: "New York", location: at)))
        guard case .placeNamed(1, "Nonna's") = try pair.answer(sent.requestId, .namePlaceReply(NamePlaceReply(
            name: "Nonna's", item: renamed, title: "Evening at Nonna's", weeksRebuilt: 2))) else {
            Issue.record("the name was not taken")
            return
        }
        #expect(pair.session.suggestion.items[1] == renamed && pair.session.title == "Evening at Nonna's")
        #expect(pair.session.loaded[0][1].title == "Evening at Nonna's" && pair.session.loaded[0][0].title == "Title r0")
        // A refusal is reported, and a late reply for another suggestion leaves the one under review alone.
        #expect(pair.session.namePlace(1, "Nonna's again"))
        let refused = try pair.sent()
        guard case .refused(let why, nil) = try pair.answer(refused.requestId, .error(ErrorInfo(code: .invalidArgument, message: "too long"))) else {
            Issue.record("the refusal was not reported")
            return
        }
        #expect(why == "too long")
        pair.session.setTitle("My own title")
        #expect(pair.session.namePlace(1, "Nonna's"))
        let kept = try pair.sent()
        _ = try pair.answer(kept.requestId, .namePlaceReply(NamePlaceReply(name: "Nonna's", item: renamed, title: "Evening at Nonna's")))
        #expect(pair.session.title == "My own title", "the person's own title stays")
    }

    @Test("a hide takes the suggestion out of the lists, and undo puts it back where it was")
    func hideAndUndo() throws {
        let pair = try Pair()
        _ = pair.session.begin(Self.lists(recommended: 3), id: 1)
        pair.session.open(pair.session.loaded[0][1])
        pair.session.hide(.suggestion)
        let hide = try pair.sent()
        let rule = HiddenRule(id: 42)
        guard case .hidden(let words) = try pair.answer(hide.requestId, .hideReply(HideReply(rule: rule, description: "Hidden: Title r1"))) else {
            Issue.record("the hide was not taken")
            return
        }
        #expect(words == "Hidden: Title r1")
        #expect(pair.session.loaded[0].map(\.id) == ["r0", "r2"])
        #expect(pair.session.totals[0] == 2)
        #expect(pair.session.undoHide())
        let undo = try pair.sent()
        #expect(undo.body == .unhide(UnhideRequest(sessionHandle: "h", ruleId: 42)))
        guard case .unhidden = try pair.answer(undo.requestId, .hideReply(HideReply(description: "Shown again"))) else {
            Issue.record("the undo was not taken")
            return
        }
        #expect(pair.session.loaded[0].map(\.id) == ["r0", "r1", "r2"])
        #expect(pair.session.totals[0] == 3)
        #expect(!pair.session.undoHide(), "nothing is left to undo")
    }

    @Test("an answer to no request of this session changes nothing")
    func strayAnswer() throws {
        let pair = try Pair()
        _ = pair.session.begin(Self.lists(recommended: 1, recommendedTotal: 2), id: 1)
        let page = SuggestionsPageReply(list: .recommended, offset: 1, suggestions: [Self.suggestion("x")], total: 2)
        guard case .none = try pair.answer(12_345, .suggestionsPageReply(page)) else {
            Issue.record("a page nobody asked for was taken")
            return
        }
        #expect(pair.session.loaded[0].count == 1)
    }
}
