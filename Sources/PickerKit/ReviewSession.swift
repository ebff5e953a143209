import Foundation
public import PickerdTransport
public import PickerdWire

/// One presentation as a picker front end sees it: what pickerd sent (the review request, the pages
/// of each list, which items cannot be added), what the person did (the suggestion open, the items
/// kept, the title), and the messages that answer pickerd. A picker draws from it and calls it from
/// one thread; it never sends data back, only identifiers.
public final class ReviewSession {
    /// The two lists, in the order pickers show them.
    public enum List: Int, CaseIterable, Sendable {
        case recommended = 0
        case recent = 1

        var wire: SuggestionList { self == .recommended ? .recommended : .recent }
    }

    /// What the review request asks of the person first.
    public enum Stage: Sendable {
        /// Whether to allow an app not allowed yet.
        case approval
        /// The consent sheet, on the first presentation.
        case consent
        /// The lists (and, when the app's token matched, ``preloaded`` to open at once).
        case lists
    }

    private let connection: FrameConnection
    /// The review request being answered.
    public private(set) var review = ReviewRequest()
    private var reviewID: UInt64 = 0
    /// Each list's suggestions loaded so far.
    public private(set) var loaded: [[Suggestion]] = [[], []]
    /// How many suggestions each list holds in all.
    public private(set) var totals = [0, 0]
    private var pendingPage: [UInt64: List] = [:]
    /// The suggestion under review.
    public private(set) var suggestion = Suggestion()
    /// Per item of ``suggestion``: whether the person keeps it.
    public private(set) var kept: [Bool] = []
    /// The title, as the person may have edited it.
    public private(set) var title = ""
    public private(set) var titleEdited = false
    /// Why an item cannot be added, by item id, as pickerd answered its media ("IMG_0004.HEIC is no
    /// longer there": one of the person's own files changed or went since it was indexed). Such an
    /// item is left out, and cannot be kept again.
    public private(set) var unavailable: [String: String] = [:]
    /// The privacy banner was dismissed (remembered by pickerd with the decision).
    public var bannerDismissed = false
    private var pendingMedia: [UInt64: String] = [:]
    private var pendingPrompt: [UInt64: Int] = [:]
    private var pendingHide: [UInt64: Suggestion] = [:]
    private var pendingUnhide: Set<UInt64> = []
    private var pendingName: [UInt64: (suggestionID: String, index: Int)] = [:]
    /// The last thing hidden in this picker, which ``undoHide()`` brings back: its rule, the
    /// suggestion it was hidden from, and where that stood in each list.
    public private(set) var lastHidden: (ruleID: UInt64, description: String, suggestion: Suggestion, positions: [Int?])?
    private var nextRequestID: UInt64 = 1 << 32

    /// A session answering on `connection`.
    public init(connection: FrameConnection) {
        self.connection = connection
    }

    /// The title of the button that adds the suggestion: the app's, or "Add to <App>".
    public var addTitle: String { review.buttonTitle.isEmpty ? "Add to \(review.appDisplayName)" : review.buttonTitle }

    /// The banner shows: pickerd asks for it, and the person has not dismissed it.
    public var showsBanner: Bool { review.showPrivacyBanner && !bannerDismissed }

    /// Why both lists are empty, in the words every picker uses: pickerd holds nothing yet (and how to
    /// add something), or the person's categories hide every suggestion. `nil` when there is
    /// something to show.
    public var emptyListsReason: String? {
        guard totals.allSatisfy({ $0 == 0 }) else { return nil }
        return review.libraryEmpty ? PickerWords.emptyLibrary : PickerWords.everySuggestionHidden
    }

    /// How many items are kept.
    public var keptCount: Int { kept.filter { $0 }.count }

    /// A review request arrived (a first one, or the next after an approval or consent).
    /// - Returns: what to show.
    public func begin(_ request: ReviewRequest, id: UInt64) -> Stage {
        review = request
        reviewID = id
        if request.appApprovalNeeded { return .approval }
        if request.consentNeeded { return .consent }
        loaded = [request.recommended, request.recent]
        totals = [max(Int(request.recommendedTotal), request.recommended.count), max(Int(request.recentTotal), request.recent.count)]
        pendingPage = [:]
        return .lists
    }

    /// The suggestion the app's token opened on, when it matched one.
    public var preloaded: Suggestion? {
        guard let preloaded = review.preloaded, !review.preloadedSuggestionId.isEmpty, preloaded.id == review.preloadedSuggestionId else { return nil }
        return preloaded
    }

    // MARK: Lists

    /// Asks for the next page of `list` when there is more and no page of it is on its way.
    /// - Returns: whether a request was sent.
    @discardableResult
    public func loadMore(_ list: List) -> Bool {
        guard loaded[list.rawValue].count < totals[list.rawValue], !pendingPage.values.contains(list) else { return false }
        let id = takeRequestID()
        pendingPage[id] = list
        send(.suggestionsPage(SuggestionsPageRequest(sessionHandle: review.sessionHandle, list: list.wire,
                                                     offset: UInt32(loaded[list.rawValue].count), limit: 50)), id: id)
        return true
    }

    // MARK: Review

    /// Opens `chosen` for review: every item kept, its own title.
    public func open(_ chosen: Suggestion) {
        // What could not be added before is asked again: the folder may be back.
        unavailable = [:]
        suggestion = chosen
        kept = Array(repeating: true, count: chosen.items.count)
        title = chosen.title
        titleEdited = false
    }

    /// Keeps or leaves out item `index`.
    /// - Returns: `nil`, or why it cannot be kept.
    @discardableResult
    public func setKept(_ index: Int, _ keep: Bool) -> String? {
        guard kept.indices.contains(index) else { return nil }
        if keep, let reason = unavailable[suggestion.items[index].id] { return reason }
        kept[index] = keep
        return nil
    }

    /// The person's title; blank leaves it as it was.
    public func setTitle(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed != title else { return }
        title = trimmed
        titleEdited = trimmed != suggestion.title
    }

    /// Asks pickerd for item `itemID`'s media (previews), of a suggestion shown in this session.
    public func fetchMedia(_ itemID: String) {
        let id = takeRequestID()
        pendingMedia[id] = itemID
        send(.fetchMedia(FetchMediaRequest(sessionHandle: review.sessionHandle, itemId: itemID)), id: id)
    }

    /// Whether a media request is on its way.
    public var fetchingMedia: Bool { !pendingMedia.isEmpty }

    /// Asks for another reflection prompt in place of item `index`.
    /// - Returns: `false` when that item is not a reflection prompt.
    public func cyclePrompt(_ index: Int) -> Bool {
        guard suggestion.items.indices.contains(index), case .reflection? = suggestion.items[index].asset else { return false }
        let id = takeRequestID()
        pendingPrompt[id] = index
        send(.cyclePrompt(CyclePromptRequest(sessionHandle: review.sessionHandle, suggestionId: suggestion.id,
                                             itemId: suggestion.items[index].id)), id: id)
        return true
    }

    // MARK: Hiding

    /// "Hide this suggestion" or "Show fewer like this" on the suggestion under review: asks pickerd
    /// to make the rule (``Answer/hidden(_:)`` when it did; the suggestion then leaves the lists).
    public func hide(_ option: HideOption) {
        let id = takeRequestID()
        pendingHide[id] = suggestion
        send(.hide(HideRequest(sessionHandle: review.sessionHandle, suggestionId: suggestion.id, target: option.target,
                               person: option.person, placeItemId: option.placeItemID)), id: id)
    }

    /// Undoes the last hide (while the picker is open): ``Answer/unhidden(_:)`` when pickerd did.
    /// - Returns: `false` when nothing was hidden.
    @discardableResult
    public func undoHide() -> Bool {
        guard let lastHidden else { return false }
        let id = takeRequestID()
        pendingUnhide.insert(id)
        send(.unhide(UnhideRequest(sessionHandle: review.sessionHandle, ruleId: lastHidden.ruleID)), id: id)
        return true
    }

    // MARK: Naming places

    /// The visits of the suggestion under review that the person may name ("Name this place"): item
    /// positions with what the picker shows of each (the place's name as it is now, else its city,
    /// else "This place"), each place once.
    public var nameablePlaces: [(index: Int, label: String)] {
        var seen = Set<String>()
        return suggestion.items.indices.compactMap { index in
            guard case .location(let l)? = suggestion.items[index].asset, let at = l.location else { return nil }
            let label = !l.place.isEmpty ? l.place : !l.city.isEmpty ? l.city : PickerWords.thisPlace
            guard seen.insert("\(label)|\(Int(at.latitude * 1000)),\(Int(at.longitude * 1000))").inserted else { return nil }
            return (index, label)
        }
    }

    /// "Name this place": asks pickerd to call the visit at item `index` `name` from now on
    /// (``Answer/placeNamed(index:name:)`` when it did: the item and the title say it).
    /// - Returns: `false` when that item is no visit with a place, or the name is blank.
    @discardableResult
    public func namePlace(_ index: Int, _ name: String) -> Bool {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, suggestion.items.indices.contains(index), case .location(let l)? = suggestion.items[index].asset,
              l.location != nil else { return false }
        let id = takeRequestID()
        pendingName[id] = (suggestion.id, index)
        send(.namePlace(NamePlaceRequest(sessionHandle: review.sessionHandle, suggestionId: suggestion.id,
                                         placeItemId: suggestion.items[index].id, name: trimmed)), id: id)
        return true
    }

    // MARK: What pickerd answered

    /// What an answer from pickerd changed.
    public enum Answer {
        /// More of a list arrived.
        case page(List)
        /// An item's media: its pictures (descriptors, with their content types, stills before
        /// clips), or why it cannot be added (it was left out).
        case media(itemID: String, [(contentType: String, fd: OwnedFileDescriptor)], unavailable: String?)
        /// A reflection prompt was replaced at this item position (the title may have changed).
        case prompt(Int)
        /// A hide was made: what it does, in pickerd's words; the suggestion left the lists.
        case hidden(String)
        /// The last hide was undone: the suggestion is back where it was.
        case unhidden(String)
        /// A place was named: item `index` of the suggestion under review and its title say `name` now.
        case placeNamed(index: Int, name: String)
        /// pickerd refused a request; `itemID` is set when it was a media request.
        case refused(String, itemID: String?)
        /// Not an answer to a request of this session.
        case none
    }

    /// Takes in a page, media or prompt answer, or a refusal of one.
    public func answer(_ frame: ReceivedFrame) -> Answer {
        let id = frame.envelope.requestId
        switch frame.envelope.body {
        case .suggestionsPageReply(let page)?:
            // Appended only where it continues the list (a late reply to an older review is dropped).
            guard let list = pendingPage.removeValue(forKey: id), Int(page.offset) == loaded[list.rawValue].count else { return .none }
            loaded[list.rawValue] += page.suggestions
            totals[list.rawValue] = max(Int(page.total), loaded[list.rawValue].count)
            return .page(list)
        case .fetchMediaReply(let reply)?:
            pendingMedia[id] = nil
            if !reply.unavailable.isEmpty {
                // pickerd would leave it out of the release anyway: the person sees it unchecked, and why.
                unavailable[reply.itemId] = reply.unavailable
                for index in suggestion.items.indices where suggestion.items[index].id == reply.itemId { kept[index] = false }
                return .media(itemID: reply.itemId, [], unavailable: reply.unavailable)
            }
            let files = reply.media.compactMap { media -> (String, OwnedFileDescriptor)? in
                guard media.hasFd, frame.descriptors.indices.contains(Int(media.fdIndex)) else { return nil }
                return (media.contentType, frame.descriptors[Int(media.fdIndex)])
            }
            // A still first (a Live Photo's image), then a clip: what a preview shows.
            let stillsFirst = files.filter { $0.0.hasPrefix("image/") } + files.filter { !$0.0.hasPrefix("image/") }
            return .media(itemID: reply.itemId, stillsFirst, unavailable: nil)
        case .cyclePromptReply(let reply)?:
            guard let index = pendingPrompt.removeValue(forKey: id), let item = reply.item, suggestion.items.indices.contains(index) else { return .none }
            suggestion.items[index] = item
            suggestion.title = reply.title
            if !titleEdited { title = reply.title }
            return .prompt(index)
        case .hideReply(let reply)? where pendingHide[id] != nil:
            let hidden = pendingHide.removeValue(forKey: id)!
            let positions = loaded.map { $0.firstIndex { $0.id == hidden.id } }
            for list in List.allCases {
                if let index = positions[list.rawValue] {
                    loaded[list.rawValue].remove(at: index)
                    totals[list.rawValue] -= 1
                }
            }
            lastHidden = (reply.rule?.id ?? 0, reply.description, hidden, positions)
            return .hidden(reply.description)
        case .hideReply(let reply)? where pendingUnhide.contains(id):
            pendingUnhide.remove(id)
            guard let back = lastHidden else { return .none }
            for list in List.allCases {
                if let index = back.positions[list.rawValue] {
                    loaded[list.rawValue].insert(back.suggestion, at: min(index, loaded[list.rawValue].count))
                    totals[list.rawValue] += 1
                }
            }
            lastHidden = nil
            return .unhidden(reply.description)
        case .namePlaceReply(let reply)?:
            guard let (suggestionID, index) = pendingName.removeValue(forKey: id), let item = reply.item else { return .none }
            // The lists show the new title too; the suggestion under review (if still this one) its item.
            for list in List.allCases {
                for at in loaded[list.rawValue].indices where loaded[list.rawValue][at].id == suggestionID {
                    loaded[list.rawValue][at].title = reply.title
                    if loaded[list.rawValue][at].items.indices.contains(index) { loaded[list.rawValue][at].items[index] = item }
                }
            }
            guard suggestion.id == suggestionID, suggestion.items.indices.contains(index) else { return .none }
            suggestion.items[index] = item
            suggestion.title = reply.title
            if !titleEdited { title = reply.title }
            return .placeNamed(index: index, name: reply.name)
        case .error(let error)?:
            pendingName[id] = nil
            pendingPage[id] = nil
            pendingHide[id] = nil
            pendingUnhide.remove(id)
            pendingPrompt[id] = nil
            return .refused(error.message, itemID: pendingMedia.removeValue(forKey: id))
        default:
            return .none
        }
    }

    // MARK: Decisions

    /// The person's answer about an app not yet allowed.
    public func answerApproval(allow: Bool) {
        send(.appApproval(AppApprovalDecision(sessionHandle: review.sessionHandle, allow: allow)), id: reviewID)
    }

    /// The consent sheet's answer: on (with the categories, when customized) or not now.
    public func answerConsent(_ answer: ConsentAnswer, categories: [CategorySetting] = []) {
        send(.consentDecision(ConsentDecision(sessionHandle: review.sessionHandle, answer: answer, categories: categories)), id: reviewID)
    }

    /// Adds the kept items of the suggestion under review, with the title if edited.
    public func approve() {
        let keptIDs = suggestion.items.indices.filter { kept[$0] }.map { suggestion.items[$0].id }
        var approval = Approval(suggestionId: suggestion.id, keptItemIds: keptIDs)
        if titleEdited {
            approval.titleEdited = true
            approval.title = title
        }
        send(.reviewDecision(ReviewDecision(sessionHandle: review.sessionHandle, privacyBannerDismissed: bannerDismissed,
                                            decision: .approve(approval))), id: reviewID)
    }

    /// Cancels: the app receives nothing.
    public func cancel() {
        send(.reviewDecision(ReviewDecision(sessionHandle: review.sessionHandle, privacyBannerDismissed: bannerDismissed,
                                            decision: .cancel(Cancelled()))), id: reviewID)
    }

    private func send(_ body: Envelope.Body, id: UInt64) {
        try? connection.send(Envelope(requestId: id, body: body))
    }

    private func takeRequestID() -> UInt64 {
        nextRequestID += 1
        return nextRequestID
    }
}
