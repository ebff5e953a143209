import CTerminal
import Foundation
import Glibc
import PickerKit
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

extension PickerScreen {
    // MARK: Keys

    func press(_ key: Int) {
        message = ""
        switch screen {
        case .waiting: break
        case .approval: approvalKey(key)
        case .consent: consentKey(key)
        case .customize: customizeKey(key)
        case .about: screen = .consent
        case .learnMore: screen = .list
        case .list: listKey(key)
        case .review: reviewKey(key)
        case .editTitle: editKey(key)
        case .fewer: fewerKey(key)
        case .namePlace: nameKey(key)
        }
    }

    private func approvalKey(_ key: Int) {
        switch key {
        case TERM_KEY_LEFT, TERM_KEY_RIGHT, TERM_KEY_BACKTAB, 9: approvalButton = 1 - approvalButton
        case TERM_KEY_ENTER: answerApproval(allow: approvalButton == 0)
        case Self.code("a"): answerApproval(allow: true)
        case Self.code("d"), Self.code("n"), 27, Self.code("q"), 3: answerApproval(allow: false)
        default: break
        }
    }

    /// Allow: pickerd remembers it and sends the review (consent or lists). Don't Allow: the
    /// presentation ends, and the terminal goes back to the app before it hears so.
    private func answerApproval(allow: Bool) {
        if !allow { term_close() }
        session.answerApproval(allow: allow)
        if allow { screen = .waiting } else { finish(0) }
    }

    private func consentKey(_ key: Int) {
        switch key {
        case TERM_KEY_LEFT, TERM_KEY_BACKTAB: consentButton = (consentButton + 3) % 4
        case TERM_KEY_RIGHT, 9: consentButton = (consentButton + 1) % 4
        case TERM_KEY_ENTER: activateConsent(consentButton)
        case Self.code("t"): activateConsent(0)
        case Self.code("c"): activateConsent(1)
        case Self.code("a"): activateConsent(2)
        case Self.code("n"), 27, Self.code("q"), 3: activateConsent(3)
        default: break
        }
    }

    private func activateConsent(_ button: Int) {
        switch button {
        case 0:
            session.answerConsent(.accept)
            screen = .waiting
        case 1:
            categoryIndex = 0
            screen = .customize
        case 2:
            screen = .about
        default:
            term_close()
            session.answerConsent(.decline)
            finish(0)
        }
    }

    private func customizeKey(_ key: Int) {
        switch key {
        case TERM_KEY_UP: categoryIndex = max(0, categoryIndex - 1)
        case TERM_KEY_DOWN: categoryIndex = min(categories.count - 1, categoryIndex + 1)
        case Self.code(" "): if categories.indices.contains(categoryIndex) { categories[categoryIndex].enabled.toggle() }
        case TERM_KEY_ENTER:
            session.answerConsent(.customize, categories: categories)
            screen = .waiting
        case 27, TERM_KEY_BACKSPACE: screen = .consent
        default: break
        }
    }

    var list: [Suggestion] { session.loaded[tab] }

    /// Asks for the tab's next page when the selection comes within ten of the end of what is loaded.
    private func loadMoreIfNeeded() {
        guard selection[tab] >= list.count - 10 else { return }
        session.loadMore(tab == 0 ? .recommended : .recent)
    }

    private func listKey(_ key: Int) {
        switch key {
        case TERM_KEY_UP: selection[tab] = max(0, selection[tab] - 1)
        case TERM_KEY_DOWN: selection[tab] = min(max(0, list.count - 1), selection[tab] + 1)
        case TERM_KEY_PAGE_UP: selection[tab] = max(0, selection[tab] - 5)
        case TERM_KEY_PAGE_DOWN: selection[tab] = min(max(0, list.count - 1), selection[tab] + 5)
        case 9, TERM_KEY_BACKTAB, TERM_KEY_LEFT, TERM_KEY_RIGHT: tab = 1 - tab
        case TERM_KEY_ENTER: if list.indices.contains(selection[tab]) { open(list[selection[tab]]) }
        case Self.code("x"): if review.showPrivacyBanner { session.bannerDismissed = true }
        case Self.code("?"): screen = .learnMore
        case Self.code("u"): if session.undoHide() { notice = "" }
        case 27, Self.code("q"), 3: cancel()
        default: break
        }
        loadMoreIfNeeded()
    }

    func open(_ chosen: Suggestion) {
        // What could not be added before is asked again: the folder may be back.
        for id in unavailable.keys { previews[id] = nil }
        session.open(chosen)
        itemIndex = 0
        screen = .review
    }

    private func reviewKey(_ key: Int) {
        let count = suggestion.items.count
        switch key {
        case TERM_KEY_LEFT, TERM_KEY_UP: itemIndex = max(0, itemIndex - 1)
        case TERM_KEY_RIGHT, TERM_KEY_DOWN: itemIndex = min(count - 1, itemIndex + 1)
        case TERM_KEY_HOME: itemIndex = 0
        case TERM_KEY_END: itemIndex = count - 1
        case Self.code(" "):
            guard kept.indices.contains(itemIndex) else { return }
            if let reason = session.setKept(itemIndex, !kept[itemIndex]) { message = "Cannot be added: \(reason)" }
        case Self.code("e"):
            editBuffer = title
            screen = .editTitle
        case Self.code("p"):
            if !session.cyclePrompt(itemIndex) { message = "Only a reflection prompt can be changed" }
        case Self.code("h"):
            session.hide(.suggestion)
        case Self.code("f"):
            fewerOptions = HideOption.fewer(suggestion)
            fewerIndex = 0
            screen = .fewer
        case Self.code("n"):
            // The place of the item on screen, else the suggestion's first.
            let places = session.nameablePlaces
            guard let place = places.first(where: { $0.index == itemIndex }) ?? places.first else {
                message = "This suggestion has no place to name"
                return
            }
            naming = place
            editBuffer = ""
            screen = .namePlace
        case TERM_KEY_ENTER, Self.code("a"):
            guard kept.contains(true) else {
                message = suggestion.items.allSatisfy({ unavailable[$0.id] != nil })
                    ? "None of these can be added now; press Esc to cancel" : "Keep at least one item, or press Esc to cancel"
                return
            }
            approve()
        case TERM_KEY_BACKSPACE, Self.code("b"): screen = .list
        case 27, Self.code("q"), 3: cancel()
        default: break
        }
    }

    /// "Show fewer like this": one of the suggestion's people, its place or its days.
    private func fewerKey(_ key: Int) {
        switch key {
        case TERM_KEY_UP: fewerIndex = max(0, fewerIndex - 1)
        case TERM_KEY_DOWN: fewerIndex = min(fewerOptions.count - 1, fewerIndex + 1)
        case TERM_KEY_ENTER: if fewerOptions.indices.contains(fewerIndex) { session.hide(fewerOptions[fewerIndex]) }
        case 27, TERM_KEY_BACKSPACE, Self.code("b"): screen = .review
        default: break
        }
    }

    private func editKey(_ key: Int) {
        switch key {
        case TERM_KEY_ENTER:
            session.setTitle(editBuffer)
            screen = .review
        case 27: screen = .review
        default: type(key, limit: 120)
        }
    }

    /// "Name this place": what the person types, sent on Enter.
    private func nameKey(_ key: Int) {
        switch key {
        case TERM_KEY_ENTER:
            guard let naming else { return }
            if session.namePlace(naming.index, editBuffer) {
                message = "Naming \(naming.label)…"
                screen = .review
            } else {
                message = "Type a name, or press Esc"
            }
        case 27:
            screen = .review
        default: type(key, limit: 80)
        }
    }

    /// A key typed into the line being edited (``editBuffer``): Backspace, Ctrl-U, or a character.
    private func type(_ key: Int, limit: Int) {
        switch key {
        case TERM_KEY_BACKSPACE: if !editBuffer.isEmpty { editBuffer.removeLast() }
        case 21: editBuffer = ""  // Ctrl-U, as in a shell
        default:
            if key >= 32, key < 0x110000, key != 127, let scalar = Unicode.Scalar(UInt32(key)), editBuffer.count < limit {
                editBuffer.unicodeScalars.append(scalar)
            }
        }
    }
}
