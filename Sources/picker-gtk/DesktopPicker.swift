import CPickerWindow
import Foundation
import PickerKit
import PickerdTransport
import PickerdWire

/// The window and what the person does in it. Everything runs on the main thread, in GTK's main
/// loop: frames from pickerd are collected by the inbox's thread, which wakes the loop.
@MainActor
final class DesktopPicker {
    /// The picker the C event handler reaches.
    static var current: DesktopPicker?

    /// Where each event comes from: fixed controls, and ranges for rows and checks by index.
    enum Control: Int32 {
        case inbox = 1, window, allow, deny, turnOn, customize, about, notNow, back, turnOnCustomized
        case learnMore, dismissBanner, cancel, tabs, previous, next, editTitle, titleEntry, titleDone, anotherPrompt, add
        case hide, fewer, undo
        /// The lists' rows past the first screenful, a few at a time.
        case moreRows = 30
        case recommendedList = 40, recentList, itemList
        static let categoryBase: Int32 = 1000
        static let itemBase: Int32 = 2000
        /// The options of "Show fewer like this", by index.
        static let fewerBase: Int32 = 3000
    }

    enum Screen { case waiting, approval, consent, customize, about, lists, learnMore, review, fewer }

    /// A preview of an item, as pickerd sent it.
    enum Preview {
        case encoded([UInt8])
        case pixels(PixelImage)
        case none
    }

    private let client: ProtocolClient
    private let session: ReviewSession
    private var inbox: Inbox!
    private var window: OpaquePointer?
    private(set) var exitCode: Int32 = 0
    private var screen = Screen.waiting
    private var ended = false
    /// Screens shown so far: the number each drawn screen is marked with (`_PICKERD_SCREEN`).
    private var shownCount = 0
    private let trace = PickerTrace(picker: "picker-gtk")

    private var categories: [CategorySetting] = []
    private var tab = ReviewSession.List.recommended
    private var itemIndex = 0
    private var editingTitle = false
    /// "Show fewer like this": what it offers for the suggestion under review.
    private var fewerOptions: [HideOption] = []
    /// What the last hide did, shown over the lists with its undo.
    private var notice = ""
    /// Previews by item id, fetched once per window.
    private var previews: [String: Preview] = [:]
    /// Items whose previews are wanted, in order; one request is on its way at a time.
    private var wanted: [String] = []

    /// The widgets of the screen shown; all of them go when the screen changes.
    private struct Widgets {
        var lists: [OpaquePointer] = []
        var stack: OpaquePointer?
        var listPages: [OpaquePointer] = []
        /// Holders of a suggestion row's picture, by the item it shows.
        var thumbnails: [String: [OpaquePointer]] = [:]
        var titleRow: OpaquePointer?
        var summary: OpaquePointer?
        var carousel: OpaquePointer?
        var itemChecks: [OpaquePointer] = []
        var itemNotes: [OpaquePointer] = []
        var message: OpaquePointer?
        var add: OpaquePointer?
        var entry: OpaquePointer?
    }
    private var widgets = Widgets()

    init(client: ProtocolClient) {
        self.client = client
        session = ReviewSession(connection: client.connection)
        pw_css(Self.css)
        inbox = Inbox(client.connection) { pw_wake(Control.inbox.rawValue) }
    }

    /// The C side's one event handler.
    nonisolated static let event: pw_event_handler = { id, kind, value, text in
        let string = text.map { String(cString: $0) }
        MainActor.assumeIsolated {
            DesktopPicker.current?.handle(id: id, kind: pw_event_kind(rawValue: UInt32(kind)), value: Int(value), text: string)
        }
    }

    // MARK: Events

    private func handle(id: Int32, kind: pw_event_kind, value: Int, text: String?) {
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
            if !session.cyclePrompt(itemIndex) { say("Only a reflection prompt can be changed") }
        case (.add, _): add()
        case (.hide, _): session.hide(.suggestion)
        case (.fewer, _):
            fewerOptions = HideOption.fewer(session.suggestion)
            show(.fewer)
        case (.undo, _): session.undoHide()
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
        case .fewer: closing ? cancel() : show(.review)
        case .review where editingTitle && !closing: editTitle(false)
        case .lists, .review, .waiting: cancel()
        }
    }

    private func back() {
        switch screen {
        case .customize, .about: show(.consent)
        case .learnMore, .review: show(.lists)
        case .fewer: show(.review)
        default: break
        }
    }

    // MARK: Frames from pickerd

    private func receive() {
        for frame in inbox.take() {
            guard !ended else { return }
            switch frame.envelope.body {
            case .review(let request)?:
                trace.note("received", "review")
                let stage = session.begin(request, id: frame.envelope.requestId)
                openWindow()
                switch stage {
                case .approval: show(.approval)
                case .consent:
                    categories = request.categories
                    show(.consent)
                case .lists:
                    show(.lists)
                    if let preloaded = session.preloaded { open(preloaded) }
                }
            case .dismiss?:
                end(0)
            default:
                answered(session.answer(frame))
            }
        }
        if inbox.isClosed && !ended { end(1) }
    }

    private func answered(_ answer: ReviewSession.Answer) {
        switch answer {
        case .page(let list):
            if screen == .lists { appendRows(list) }
        case .media(let itemID, let files, let reason):
            if reason != nil {
                previews[itemID] = Preview.none
                if screen == .review { refreshItems() }
            } else {
                previews[itemID] = Self.preview(from: files)
                pictureArrived(itemID)
            }
            fetchNext()
        case .prompt(let index):
            if screen == .review {
                show(.review)
                select(item: index, moveList: true)
                say("Another prompt")
            }
        case .hidden(let description):
            // Back to the lists, which no longer hold it; the undo is there while the window is.
            notice = description
            show(.lists)
        case .unhidden(let description):
            notice = description
            if screen == .lists { show(.lists) }
        case .refused(let message, let itemID):
            if let itemID {
                previews[itemID] = Preview.none
                fetchNext()
                // Previews are fetched ahead: only the item on screen speaks up.
                guard screen == .review, session.suggestion.items.indices.contains(itemIndex),
                      session.suggestion.items[itemIndex].id == itemID else { return }
            }
            say(message)
        case .none:
            break
        }
    }

    /// A still if there is one (a Live Photo's image), else a clip's first frame (`files` come stills first).
    private static func preview(from files: [(contentType: String, fd: OwnedFileDescriptor)]) -> Preview {
        for file in files {
            guard let fd = file.fd.descriptor else { continue }
            switch file.contentType {
            case "image/png", "image/jpeg", "image/tiff": return .encoded(PickerWords.readAll(fd))
            case "video/x-yuv4mpeg2", "video/yuv4mpeg":
                if let image = PixelImage(y4m: PickerWords.readAll(fd)) { return .pixels(image) }
            default: continue
            }
        }
        return .none
    }

    // MARK: Decisions

    private func answerApproval(allow: Bool) {
        session.answerApproval(allow: allow)
        if allow { show(.waiting) } else { end(0) }
    }

    private func declineConsent() {
        session.answerConsent(.decline)
        end(0)
    }

    private func open(_ suggestion: Suggestion) {
        // What could not be added before is asked again: the folder may be back.
        for id in session.unavailable.keys { previews[id] = nil }
        session.open(suggestion)
        itemIndex = 0
        editingTitle = false
        show(.review)
    }

    private func toggle(_ index: Int, to keep: Bool) {
        guard session.kept.indices.contains(index) else { return }
        if let reason = session.setKept(index, keep) { say("Cannot be added: \(reason)") } else { say("") }
        refreshItems()
    }

    private func add() {
        guard session.keptCount > 0 else {
            say(session.suggestion.items.allSatisfy { session.unavailable[$0.id] != nil }
                ? "None of these can be added now: Cancel" : "Keep at least one item, or Cancel")
            return
        }
        session.approve()
        end(0)
    }

    private func cancel() {
        session.cancel()
        end(0)
    }

    /// The window goes before the app hears the outcome; then the picker exits.
    private func end(_ code: Int32) {
        ended = true
        exitCode = code
        if let window { pw_destroy(window) }
        window = nil
        client.close()
        pw_quit()
    }

    // MARK: Previews

    /// Wants `itemID`'s preview, first when `urgent`.
    private func want(_ itemID: String, urgent: Bool = false) {
        guard previews[itemID] == nil else { return }
        wanted.removeAll { $0 == itemID }
        if urgent { wanted.insert(itemID, at: 0) } else { wanted.append(itemID) }
        fetchNext()
    }

    private func fetchNext() {
        while !session.fetchingMedia, !wanted.isEmpty {
            let next = wanted.removeFirst()
            if previews[next] == nil { session.fetchMedia(next) }
        }
        // How many pictures are still to come (`_PICKERD_PICTURES`): the demo photographs a screen
        // when its pictures are in.
        if let window { pw_window_set_property(window, "_PICKERD_PICTURES", String(wanted.count + (session.fetchingMedia ? 1 : 0))) }
    }

    private func pictureArrived(_ itemID: String) {
        switch screen {
        case .lists:
            for holder in widgets.thumbnails[itemID] ?? [] {
                pw_clear(holder)
                pw_append(holder, picture(itemID, width: 72, height: 72, alternative: "picture"))
            }
        case .review:
            if session.suggestion.items.indices.contains(itemIndex), session.suggestion.items[itemIndex].id == itemID { fillCarousel() }
        default:
            break
        }
    }

    /// The item's picture as fetched, else its glyph.
    private func picture(_ itemID: String, width: Int32, height: Int32, alternative: String, glyph: String = "▣") -> OpaquePointer {
        switch previews[itemID] {
        case .encoded(let bytes)?:
            if let picture = bytes.withUnsafeBufferPointer({ pw_picture_encoded($0.baseAddress, $0.count, width, height, alternative) }) { return picture }
        case .pixels(let image)?:
            let rgb = image.rgb
            if let picture = rgb.withUnsafeBufferPointer({ pw_picture_rgb($0.baseAddress, Int32(image.width), Int32(image.height), width, height, alternative) }) {
                return picture
            }
        default:
            break
        }
        return pw_glyph(glyph, width, height, alternative)
    }

    // MARK: Screens

    private func openWindow() {
        guard window == nil else { return }
        let title = "\(session.review.appDisplayName) — Journaling Suggestions"
        let created = pw_window(title, 940, 660, Control.window.rawValue)!
        window = created
        if trace.isOn { pw_window_report_keys(created, Control.window.rawValue) }
        if !session.review.parentWindow.isEmpty {
            if pw_window_set_parent(created, session.review.parentWindow) == 0 {
                log("shown over the app's window \(session.review.parentWindow)")
            } else {
                log("the app's window \(session.review.parentWindow) is not one this display has; shown on its own")
            }
        }
        pw_window_present(created)
        log("window 0x\(String(pw_window_xid(created), radix: 16)) on \(String(cString: pw_display_name())) for \(session.review.appDisplayName)")
    }

    private func show(_ next: Screen) {
        guard let window else { return }
        screen = next
        widgets = Widgets()
        let root = pw_box(1, 12)!
        pw_margins(root, 18, 24, 18, 24)
        switch next {
        case .waiting: buildWaiting(root)
        case .approval: buildApproval(root, window)
        case .consent: buildConsent(root, window)
        case .customize: buildCustomize(root, window)
        case .about: buildPage(root, window, "About Journaling Suggestions", PickerWords.aboutText)
        case .learnMore: buildPage(root, window, "Your privacy", PickerWords.privacyText(app: session.review.appDisplayName, on: .window))
        case .lists: buildLists(root, window)
        case .review: buildReview(root, window)
        case .fewer: buildFewer(root)
        }
        pw_window_set_child(window, root)
        focusFirst()
        trace.note("built", screenName)
        markDrawn()
    }

    /// What the screen is called where it is marked drawn: its name, and "review-title" while the
    /// title is edited.
    private var screenName: String {
        switch screen {
        case .waiting: "waiting"
        case .approval: "approval"
        case .consent: "consent"
        case .customize: "customize"
        case .about: "about"
        case .lists: "lists"
        case .learnMore: "learn-more"
        case .review: editingTitle ? "review-title" : "review"
        case .fewer: "fewer"
        }
    }

    /// Once the window has painted what was just built, it says so: the X11 property
    /// `_PICKERD_SCREEN` becomes "<count> <screen>" (the demo and the tests press the next key only
    /// then), and the trace notes it.
    private func markDrawn() {
        guard let window else { return }
        shownCount += 1
        pw_window_mark_drawn(window, "\(shownCount) \(screenName)", Control.window.rawValue)
    }

    private var firstFocus: OpaquePointer?

    private func focusFirst() {
        if let firstFocus { pw_focus(firstFocus) }
        firstFocus = nil
    }

    private func label(_ text: String, _ style: Int32 = 0, centered: Bool = false) -> OpaquePointer {
        pw_label(text, style, centered ? 1 : 0)!
    }

    /// A row of buttons at the end of the page.
    private func buttonRow(_ buttons: [OpaquePointer], leading: [OpaquePointer] = []) -> OpaquePointer {
        let row = pw_box(0, 8)!
        for button in leading { pw_append(row, button) }
        let spacer = pw_box(0, 0)!
        pw_expand(spacer, 1, 0)
        pw_append(row, spacer)
        for button in buttons { pw_append(row, button) }
        return row
    }

    private func spacer(_ root: OpaquePointer) {
        let fill = pw_box(1, 0)!
        pw_expand(fill, 0, 1)
        pw_append(root, fill)
    }

    private func buildWaiting(_ root: OpaquePointer) {
        let box = pw_box(1, 12)!
        pw_align(box, 3, 3)
        pw_expand(box, 1, 1)
        // No spinner: an animation is painted again and again, and on a busy machine without a GPU
        // that painting takes the CPU the next screen needs. The wait is short.
        pw_append(box, label("One moment…", 3, centered: true))
        pw_append(root, box)
    }

    private func buildApproval(_ root: OpaquePointer, _ window: OpaquePointer) {
        let review = session.review
        let app = review.appDisplayName
        pw_append(root, label("Allow \(app)?", 1))
        let origin = review.appOrigin.isEmpty ? "" : " — \(review.appOrigin) —"
        pw_append(root, label("\(app)\(origin) wants to show you journaling suggestions.", 2))
        pw_append(root, label(PickerWords.approvalText(app: app, kind: review.appKind)))
        pw_append(root, label("If you allow it, \(app) may open this picker from now on, until you revoke it (pickerctl apps revoke). It still receives only what you choose to add.", 3))
        if !review.appBundleId.isEmpty { pw_append(root, label("App id: \(review.appBundleId)", 4)) }
        spacer(root)
        let deny = pw_button("_Don't Allow", 0, Control.deny.rawValue)!
        let allow = pw_button("_Allow", 0, Control.allow.rawValue)!
        pw_append(root, buttonRow([deny, allow]))
        // Where it starts: an Enter pressed without reading allows nothing.
        pw_default(window, deny)
        firstFocus = deny
    }

    private func buildConsent(_ root: OpaquePointer, _ window: OpaquePointer) {
        pw_append(root, label("Journaling Suggestions", 1))
        pw_append(root, label("\(session.review.appDisplayName) would like to show you suggestions for your journal, made on this device from your photos, workouts, places, music, contacts and moods."))
        pw_append(root, label("Suggestions stay on this device. An app receives only what you choose to add, and only when you add it.", 3))
        spacer(root)
        let turnOn = pw_button("_Turn On", 1, Control.turnOn.rawValue)!
        let customize = pw_button("_Customize", 0, Control.customize.rawValue)!
        let about = pw_button("A_bout", 3, Control.about.rawValue)!
        let notNow = pw_button("_Not Now", 0, Control.notNow.rawValue)!
        pw_append(root, buttonRow([notNow, customize, turnOn], leading: [about]))
        pw_default(window, turnOn)
        firstFocus = turnOn
    }

    private func buildCustomize(_ root: OpaquePointer, _ window: OpaquePointer) {
        pw_append(root, label("Customize Journaling Suggestions", 1))
        pw_append(root, label("Choose what suggestions may be made from:"))
        for (index, setting) in categories.enumerated() {
            let check = pw_check(PickerWords.categoryLabel(setting.category), setting.enabled ? 1 : 0, Control.categoryBase + Int32(index))!
            pw_append(root, check)
            if index == 0 { firstFocus = check }
        }
        spacer(root)
        let back = pw_button("_Back", 0, Control.back.rawValue)!
        let turnOn = pw_button("_Turn On", 1, Control.turnOnCustomized.rawValue)!
        pw_append(root, buttonRow([back, turnOn]))
        pw_default(window, turnOn)
    }

    private func buildPage(_ root: OpaquePointer, _ window: OpaquePointer, _ heading: String, _ text: String) {
        pw_append(root, label(heading, 1))
        let body = pw_box(1, 10)!
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: true) {
            pw_append(body, label(String(paragraph)))
        }
        let scrolled = pw_scrolled(body, 1)!
        pw_expand(scrolled, 1, 1)
        pw_append(root, scrolled)
        let back = pw_button("_Back", 1, Control.back.rawValue)!
        pw_append(root, buttonRow([back]))
        pw_default(window, back)
        firstFocus = back
    }

    private func buildLists(_ root: OpaquePointer, _ window: OpaquePointer) {
        let app = session.review.appDisplayName
        if session.showsBanner {
            let banner = pw_box(0, 10)!
            pw_class(banner, "pw-banner")
            let text = label("\(app) gets only what you choose to add.")
            pw_expand(text, 1, 0)
            pw_append(banner, text)
            pw_append(banner, pw_button("_Learn More", 3, Control.learnMore.rawValue))
            let dismiss = pw_button("Dismiss", 3, Control.dismissBanner.rawValue)!
            pw_accessible(dismiss, nil, "Hides this banner from now on")
            pw_append(banner, dismiss)
            pw_append(root, banner)
        }
        if !notice.isEmpty {
            let row = pw_box(0, 10)!
            pw_class(row, "pw-banner")
            let text = label(notice)
            pw_expand(text, 1, 0)
            pw_append(row, text)
            if session.lastHidden != nil { pw_append(row, pw_button("_Undo", 0, Control.undo.rawValue)) }
            pw_append(root, row)
        }
        let stack = pw_stack(Control.tabs.rawValue)!
        widgets.stack = stack
        let switcher = pw_stack_switcher(stack)!
        pw_align(switcher, 3, 0)
        pw_append(root, switcher)
        for list in ReviewSession.List.allCases {
            let id = list == .recommended ? Control.recommendedList : Control.recentList
            let name = list == .recommended ? "Recommended" : "Recent"
            let view = pw_list(id.rawValue, "\(name) suggestions")!
            widgets.lists.append(view)
            let page = pw_box(1, 0)!
            pw_append(page, view)
            widgets.listPages.append(page)
            pw_stack_add(stack, page, name.lowercased(), "\(name) (\(session.totals[list.rawValue]))")
            for suggestion in session.loaded[list.rawValue].prefix(Self.firstRows) { appendRow(suggestion, to: view) }
        }
        pw_stack_show(stack, tab == .recommended ? "recommended" : "recent")
        pw_append(root, stack)
        // Nothing at all: why, and what to do (the same words in every picker).
        if let reason = session.emptyListsReason { pw_append(root, label(reason)) }
        let cancel = pw_button("_Cancel", 0, Control.cancel.rawValue)!
        pw_append(root, buttonRow([cancel]))
        let current = widgets.lists[tab.rawValue]
        if pw_list_count(current) > 0 {
            pw_list_select(current, 0, 1)
        } else {
            firstFocus = cancel
        }
    }

    /// A suggestion's row: its picture, title, dates and what it holds.
    private func appendRow(_ suggestion: Suggestion, to list: OpaquePointer) {
        let row = pw_box(0, 12)!
        pw_margins(row, 6, 6, 6, 6)
        let holder = pw_box(0, 0)!
        pw_size(holder, 72, 72)
        pw_class(holder, "pw-thumb")
        let pictured = suggestion.items.first { PickerWords.imageMedia($0) != nil }
        if let pictured {
            pw_append(holder, picture(pictured.id, width: 72, height: 72, alternative: "picture", glyph: PickerWords.glyph(pictured)))
            widgets.thumbnails[pictured.id, default: []].append(holder)
            want(pictured.id)
        } else if let workout = suggestion.items.lazy.compactMap({ Self.route($0) }).first {
            pw_append(holder, workout)
        } else {
            pw_append(holder, pw_glyph(suggestion.items.first.map(PickerWords.glyph) ?? "•", 72, 72, "no picture"))
        }
        pw_append(row, holder)
        let text = pw_box(1, 2)!
        pw_align(text, 0, 3)
        pw_expand(text, 1, 0)
        let range = PickerWords.range(of: suggestion), contents = PickerWords.contents(suggestion.items)
        // The title, its dates and its contents, one line each: a wrapping label is laid out again
        // for every width GTK tries while it sizes the list, its text shaped each time.
        for (line, style) in [(suggestion.title, Int32(2)), (range, 3), (contents, 4)] {
            let widget = label(line, style)
            pw_label_single_line(widget)
            pw_append(text, widget)
        }
        pw_append(row, text)
        pw_list_append(list, row, "\(suggestion.title), \(range), \(contents)")
    }

    /// How many rows a list is built with: about a screenful. The rest are added after the screen is
    /// drawn, `rowsAtOnce` at a time, with the person's keys taken in between.
    static let firstRows = 10
    static let rowsAtOnce = 8

    /// Adds a few more of the rows loaded but not shown yet, and asks to be called again while any
    /// are left.
    private func appendMoreRows() {
        guard screen == .lists else { return }
        var left = false
        for list in ReviewSession.List.allCases where widgets.lists.indices.contains(list.rawValue) {
            let view = widgets.lists[list.rawValue]
            let shown = Int(pw_list_count(view))
            for suggestion in session.loaded[list.rawValue].dropFirst(shown).prefix(Self.rowsAtOnce) { appendRow(suggestion, to: view) }
            left = left || Int(pw_list_count(view)) < session.loaded[list.rawValue].count
        }
        if left { pw_wake(Control.moreRows.rawValue) }
    }

    /// The rows a page brought.
    private func appendRows(_ list: ReviewSession.List) {
        guard let stack = widgets.stack, widgets.lists.indices.contains(list.rawValue) else { return }
        let view = widgets.lists[list.rawValue]
        let shown = Int(pw_list_count(view))
        for suggestion in session.loaded[list.rawValue].dropFirst(shown) { appendRow(suggestion, to: view) }
        let name = list == .recommended ? "Recommended" : "Recent"
        pw_stack_set_title(stack, widgets.listPages[list.rawValue], "\(name) (\(session.totals[list.rawValue]))")
    }

    /// A workout's route, drawn without a map, when it has one.
    private static func route(_ item: Item, width: Int32 = 72, height: Int32 = 72) -> OpaquePointer? {
        guard case .workout(let workout)? = item.asset, workout.route.count >= 2 else { return nil }
        let latitudes = workout.route.map(\.latitude), longitudes = workout.route.map(\.longitude)
        return pw_route(latitudes, longitudes, Int32(latitudes.count), width, height, "the route of \(item.asset?.summary ?? "a workout")")
    }

    private func buildReview(_ root: OpaquePointer, _ window: OpaquePointer) {
        let suggestion = session.suggestion
        let titleRow = pw_box(0, 10)!
        widgets.titleRow = titleRow
        pw_append(root, titleRow)
        fillTitleRow()
        let summary = label("", 3)
        widgets.summary = summary
        pw_append(root, summary)

        let body = pw_box(0, 18)!
        pw_expand(body, 1, 1)
        let carousel = pw_box(1, 8)!
        pw_size(carousel, 400, -1)
        widgets.carousel = carousel
        pw_append(body, carousel)

        let items = pw_list(Control.itemList.rawValue, "All items")!
        // A click shows the item; its check (or Space, or a double click) keeps or leaves it out.
        pw_list_single_click(items, 0)
        pw_expand(items, 1, 1)
        for (index, item) in suggestion.items.enumerated() {
            let row = pw_box(1, 2)!
            pw_margins(row, 4, 6, 4, 6)
            let check = pw_check("\(PickerWords.glyph(item)) \(item.asset?.summary ?? "")", 1, Control.itemBase + Int32(index))!
            // The row takes the focus: ↑/↓ move through the items, Space keeps or leaves one out.
            pw_focusable(check, 0)
            pw_append(row, check)
            let note = label("", 4)
            pw_margins(note, 0, 0, 0, 28)
            pw_append(row, note)
            widgets.itemChecks.append(check)
            widgets.itemNotes.append(note)
            pw_list_append(items, row, "\(PickerWords.kindLabel(item)): \(item.asset?.summary ?? "")")
        }
        widgets.lists = [items]
        pw_append(body, items)
        pw_append(root, body)

        let message = label("", 5)
        widgets.message = message
        pw_append(root, message)
        let back = pw_button("_Back", 0, Control.back.rawValue)!
        let cancel = pw_button("_Cancel", 0, Control.cancel.rawValue)!
        let add = pw_button("_\(session.addTitle)", 1, Control.add.rawValue)!
        widgets.add = add
        let hide = pw_button("_Hide This Suggestion", 3, Control.hide.rawValue)!
        pw_accessible(hide, nil, "It won't be suggested again; you can undo it")
        let fewer = pw_button("Show _Fewer Like This…", 3, Control.fewer.rawValue)!
        pw_accessible(fewer, nil, "Leave out one of its people, its place or its days")
        pw_append(root, buttonRow([cancel, add], leading: [back, hide, fewer]))
        refreshItems()  // and the carousel
        if !suggestion.items.isEmpty { pw_list_select(items, Int32(itemIndex), 1) }
        // Every item's preview, the one on screen first, so each line says whether it can still be added.
        for item in suggestion.items where PickerWords.imageMedia(item) != nil { want(item.id) }
    }

    /// "Show fewer like this": a button per person, place and the days, and what hiding does.
    private func buildFewer(_ root: OpaquePointer) {
        pw_append(root, label(PickerWords.showFewer, 1))
        pw_append(root, label(session.title, 2))
        pw_append(root, label(PickerWords.fewerExplanation))
        for (index, option) in fewerOptions.enumerated() {
            let button = pw_button(option.label, 0, Control.fewerBase + Int32(index))!
            pw_align(button, 1, 0)
            pw_append(root, button)
            if index == 0 { firstFocus = button }
        }
        pw_append(root, label(PickerWords.hideExplanation, 3))
        let message = label("", 5)
        widgets.message = message
        pw_append(root, message)
        spacer(root)
        pw_append(root, buttonRow([pw_button("_Back", 0, Control.back.rawValue)!]))
    }

    private func fillTitleRow() {
        guard let row = widgets.titleRow else { return }
        pw_clear(row)
        widgets.entry = nil
        if editingTitle {
            let entry = pw_entry(session.title, "Title", Control.titleEntry.rawValue)!
            pw_expand(entry, 1, 0)
            widgets.entry = entry
            pw_append(row, entry)
            pw_append(row, pw_button("_Done", 0, Control.titleDone.rawValue))
            pw_focus(entry)
        } else {
            let title = label(session.title, 1)
            pw_expand(title, 1, 0)
            pw_append(row, title)
            let edit = pw_button("_Edit Title", 3, Control.editTitle.rawValue)!
            pw_accessible(edit, nil, "Change the title the entry gets")
            pw_append(row, edit)
        }
    }

    private func editTitle(_ editing: Bool) {
        editingTitle = editing
        fillTitleRow()
        if !editing, let list = widgets.lists.first { pw_list_select(list, Int32(itemIndex), 1) }
        markDrawn()
    }

    /// The checks, notes, counts and the Add button, as the session stands.
    private func refreshItems() {
        guard screen == .review else { return }
        let suggestion = session.suggestion
        for (index, item) in suggestion.items.enumerated() where widgets.itemChecks.indices.contains(index) {
            pw_check_set(widgets.itemChecks[index], session.kept[index] ? 1 : 0)
            let reason = session.unavailable[item.id]
            pw_sensitive(widgets.itemChecks[index], reason == nil ? 1 : 0)
            let note = reason.map { "left out: \($0)" } ?? PickerWords.details(item, utcOffsetSeconds: suggestion.localUtcOffsetS).dropFirst().first ?? ""
            pw_label_set(widgets.itemNotes[index], note)
        }
        let unavailable = suggestion.items.filter { session.unavailable[$0.id] != nil }.count
        if let summary = widgets.summary {
            pw_label_set(summary, "\(PickerWords.range(of: suggestion))  ·  keeping \(session.keptCount) of \(suggestion.items.count)"
                         + (unavailable > 0 ? "  ·  \(unavailable) cannot be added" : ""))
        }
        if let add = widgets.add { pw_sensitive(add, session.keptCount > 0 ? 1 : 0) }
        fillCarousel()
    }

    private func select(item index: Int, moveList: Bool = false) {
        let items = session.suggestion.items
        guard items.indices.contains(index) else { return }
        itemIndex = index
        if moveList, let list = widgets.lists.first { pw_list_select(list, Int32(index), 0) }
        if PickerWords.imageMedia(items[index]) != nil { want(items[index].id, urgent: true) }
        fillCarousel()
    }

    /// The carousel: the item's picture (a photo, a Live Photo's still, a clip's first frame, a
    /// contact's photo, artwork, a route), where it stands, what it is, and whether it will be added.
    private func fillCarousel() {
        guard let carousel = widgets.carousel else { return }
        pw_clear(carousel)
        let items = session.suggestion.items
        guard items.indices.contains(itemIndex) else { return }
        let item = items[itemIndex]
        let kind = PickerWords.kindLabel(item)
        let summary = item.asset?.summary ?? ""
        let picture: OpaquePointer
        if PickerWords.imageMedia(item) != nil {
            picture = self.picture(item.id, width: 400, height: 300, alternative: "\(kind): \(summary)", glyph: PickerWords.glyph(item))
        } else if let route = Self.route(item, width: 400, height: 300) {
            picture = route
        } else {
            picture = pw_glyph(PickerWords.glyph(item), 400, 300, kind)
        }
        pw_class(picture, "pw-carousel")
        pw_append(carousel, picture)
        let navigation = pw_box(0, 8)!
        let previous = pw_button("‹ _Previous", 3, Control.previous.rawValue)!
        pw_sensitive(previous, itemIndex > 0 ? 1 : 0)
        let next = pw_button("_Next ›", 3, Control.next.rawValue)!
        pw_sensitive(next, itemIndex < items.count - 1 ? 1 : 0)
        let position = label("\(itemIndex + 1) of \(items.count)  ·  \(kind)", 2, centered: true)
        pw_expand(position, 1, 0)
        pw_append(navigation, previous)
        pw_append(navigation, position)
        pw_append(navigation, next)
        pw_append(carousel, navigation)
        for detail in PickerWords.details(item, utcOffsetSeconds: session.suggestion.localUtcOffsetS) { pw_append(carousel, label(detail)) }
        let reason = session.unavailable[item.id]
        let status = session.kept[itemIndex] ? "✓ will be added" : reason.map { "✗ left out: \($0), so it cannot be added" } ?? "✗ left out"
        pw_append(carousel, label(status, session.kept[itemIndex] ? 3 : 5))
        if case .reflection? = item.asset {
            pw_append(carousel, pw_button("Another _Prompt", 0, Control.anotherPrompt.rawValue))
        }
    }

    /// A line under the review's lists (or the log, on other screens).
    private func say(_ message: String) {
        if let label = widgets.message { pw_label_set(label, message) }
    }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data("picker-gtk: \(line)\n".utf8))
    }

    static let css = """
        .pw-title { font-size: 20pt; font-weight: bold; }
        .pw-heading { font-weight: bold; }
        .pw-dim { opacity: 0.72; }
        .pw-small { font-size: 9pt; opacity: 0.72; }
        .pw-error { color: #c01c28; }
        .pw-glyph { font-size: 26pt; background: #ebe7f3; color: #5e4b8b; border-radius: 8px; }
        .pw-carousel.pw-glyph { font-size: 72pt; }
        .pw-banner { background: #dbe8f8; border-radius: 8px; padding: 6px 10px; }
        .pw-thumb { border-radius: 6px; }
        """
}
