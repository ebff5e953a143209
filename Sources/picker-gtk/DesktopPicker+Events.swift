import CPickerWindow
import Foundation
import PickerKit
import PickerdTransport
import PickerdWire

extension DesktopPicker {
    // MARK: Events

    func handle(id: Int32, kind: pw_event_kind, value: Int, text: String?) {
        guard !ended else { return }
        if id == Control.inbox.rawValue {
            receive()
            return
        }
        if id == Control.moreRows.rawValue {
            appendMoreRows()
            return
        }
        if id >= Control.fewerBase {
            let index = Int(id - Control.fewerBase)
            if fewerOptions.indices.contains(index) { session.hide(fewerOptions[index]) }
            return
        }
        if id >= Control.itemBase, kind == PW_EVENT_TOGGLED {
            toggle(Int(id - Control.itemBase), to: value != 0)
            return
        }
        if id >= Control.categoryBase, kind == PW_EVENT_TOGGLED {
            let index = Int(id - Control.categoryBase)
            if categories.indices.contains(index) { categories[index].enabled = value != 0 }
            return
        }
        guard let control = Control(rawValue: id) else { return }
        switch (control, kind) {
        case (.window, PW_EVENT_DRAWN):
            trace.note("drawn", text ?? "")
            // The lists are on screen: now the rest of their rows.
            if screen == .lists { appendMoreRows() }
        case (.window, PW_EVENT_KEY): trace.note("key", String(value))
        case (.window, PW_EVENT_CLOSE): closeOrEscape(closing: true)
        case (.window, PW_EVENT_ESCAPE): closeOrEscape(closing: false)
        case (.allow, _): answerApproval(allow: true)
        case (.deny, _): answerApproval(allow: false)
        case (.turnOn, _):
            session.answerConsent(.accept)
            show(.waiting)
        case (.customize, _): show(.customize)
        case (.about, _): show(.about)
        case (.notNow, _): declineConsent()
        case (.turnOnCustomized, _):
            session.answerConsent(.customize, categories: categories)
            show(.waiting)
        case (.back, _): back()
        case (.learnMore, _): show(.learnMore)
        case (.dismissBanner, _):
            session.bannerDismissed = true
            show(.lists)
        case (.cancel, _): cancel()
        case (.tabs, PW_EVENT_PAGE): tab = ReviewSession.List(rawValue: value) ?? .recommended
        case (.recommendedList, PW_EVENT_ROW_ACTIVATED), (.recentList, PW_EVENT_ROW_ACTIVATED):
            let list = control == .recommendedList ? ReviewSession.List.recommended : .recent
            if session.loaded[list.rawValue].indices.contains(value) { open(session.loaded[list.rawValue][value]) }
        case (.recommendedList, PW_EVENT_ROW_SELECTED), (.recentList, PW_EVENT_ROW_SELECTED):
            let list = control == .recommendedList ? ReviewSession.List.recommended : .recent
            // Within ten of the end of what is loaded: the next page, as the terminal picker does.
            if value >= session.loaded[list.rawValue].count - 10 { session.loadMore(list) }
        case (.recommendedList, PW_EVENT_END_REACHED): session.loadMore(.recommended)
        case (.recentList, PW_EVENT_END_REACHED): session.loadMore(.recent)
        case (.itemList, PW_EVENT_ROW_SELECTED): select(item: value)
        case (.itemList, PW_EVENT_ROW_ACTIVATED):
            if session.kept.indices.contains(value) { toggle(value, to: !session.kept[value]) }
        case (.previous, _): select(item: itemIndex - 1, moveList: true)
        case (.next, _): select(item: itemIndex + 1, moveList: true)
        case (.editTitle, _): editTitle(true)
        case (.titleEntry, PW_EVENT_ACTIVATED):
            session.setTitle(text ?? "")
            editTitle(false)
        case (.titleDone, _):
            if let entry = widgets.entry { session.setTitle(String(cString: pw_entry_text(entry))) }
            editTitle(false)
        case (.anotherPrompt, _):
            if !session.cyclePrompt(itemIndex) { complain("Only a reflection prompt can be changed") }
        case (.add, _): add()
        case (.hide, _): session.hide(.suggestion)
        case (.fewer, _):
            fewerOptions = HideOption.fewer(session.suggestion)
            show(.fewer)
        case (.undo, _): session.undoHide()
        case (.namePlace, _):
            guard let place = session.nameablePlaces.first(where: { $0.index == itemIndex }) else { return }
            naming = place
            show(.namePlace)
        case (.placeEntry, PW_EVENT_ACTIVATED): namePlace(text ?? "")
        case (.placeDone, _): if let entry = widgets.entry { namePlace(String(cString: pw_entry_text(entry))) }
        default: break
        }
    }

    /// Escape goes back from a sub-page and otherwise ends as the page's way out does; closing the
    /// window always ends it.
    private func closeOrEscape(closing: Bool) {
        switch screen {
        case .approval: answerApproval(allow: false)
        case .consent: declineConsent()
        case .customize, .about: closing ? declineConsent() : show(.consent)
        case .learnMore: closing ? cancel() : show(.lists)
        case .fewer, .namePlace: closing ? cancel() : show(.review)
        case .review where editingTitle && !closing: editTitle(false)
        case .lists, .review, .waiting: cancel()
        }
    }

    func back() {
        switch screen {
        case .customize, .about: show(.consent)
        case .learnMore, .review: show(.lists)
        case .fewer, .namePlace: show(.review)
        default: break
        }
    }

    /// "Name this place": sends the name typed, back on the review, which says it once pickerd has.
    private func namePlace(_ text: String) {
        guard let naming else { return }
        guard session.namePlace(naming.index, text) else {
            complain("Type a name, or go back")
            return
        }
        show(.review)
        select(item: naming.index, moveList: true)
        say("Naming \(naming.label)…")
    }
}
