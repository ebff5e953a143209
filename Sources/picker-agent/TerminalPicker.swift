import CTerminal
import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

/// `picker-agent --tui`: the terminal picker. pickerd starts one for each presentation whose app
/// handed over its terminal; it registers as a terminal agent, receives that terminal with the review
/// request, and draws the picker on it: the question whether to allow an app the person has not
/// allowed yet, the consent sheet, the privacy banner, Recommended and
/// Recent, and the review screen with its carousel and list. The app's process only waits for the
/// outcome; everything shown here comes from pickerd to this process alone.
enum TerminalPicker {
    /// Serves one presentation; returns the exit status.
    static func serve(runtimeDirectory: String?) -> Int32 {
        let client: ProtocolClient
        do {
            let paths = try PickerdPaths.resolve(runtimeDirectory: runtimeDirectory)
            client = try ProtocolClient(path: paths.agentSocket, role: .agent, software: "picker-agent --tui")
            _ = try client.request(.agentRegister(AgentRegister(name: "terminal", capabilities: [.terminal])))
        } catch let error as ProtocolClient.RemoteError {
            FileHandle.standardError.write(Data("picker-agent: \(error.message)\n".utf8))
            return 1
        } catch {
            FileHandle.standardError.write(Data("picker-agent: \(error)\n".utf8))
            return 3
        }
        let inbox = Inbox(client.connection)
        return PickerScreen(client: client, inbox: inbox).run()
    }
}

/// What pickerd sent, collected by a thread of its own so the screen never waits on the socket.
final class Inbox: Sendable {
    private let frames = Mutex<[ReceivedFrame]>([])
    private let closed = Atomic<Bool>(false)

    init(_ connection: FrameConnection) {
        let thread = Thread { [self] in
            while let frame = try? connection.receive() {
                frames.withLock { $0.append(frame) }
            }
            closed.store(true, ordering: .releasing)
        }
        thread.name = "picker-agent-inbox"
        thread.start()
    }

    /// Everything received since the last call.
    func take() -> [ReceivedFrame] { frames.withLock { frames in defer { frames = [] }; return frames } }

    /// Whether pickerd closed the connection.
    var isClosed: Bool { closed.load(ordering: .acquiring) }
}

/// The picker's screens and the person's keys. Runs on one thread.
final class PickerScreen {
    enum Screen { case waiting, approval, consent, customize, about, list, learnMore, review, editTitle }

    private let client: ProtocolClient
    private let inbox: Inbox
    private var terminal: OwnedFileDescriptor?
    private var review = ReviewRequest()
    private var reviewID: UInt64 = 0
    private var screen = Screen.waiting
    private var exitCode: Int32?

    /// On the approval sheet: 0 Allow, 1 Don't Allow (where it starts: an Enter pressed without
    /// reading allows nothing).
    private var approvalButton = 1
    private var consentButton = 0
    private var categories: [CategorySetting] = []
    private var categoryIndex = 0
    private var tab = 0
    private var selection = [0, 0]
    private var bannerDismissed = false

    private var suggestion = Suggestion()
    private var kept: [Bool] = []
    private var title = ""
    private var titleEdited = false
    private var itemIndex = 0
    private var editBuffer = ""
    private var previews: [String: PixelImage?] = [:]
    private var pendingMedia: [UInt64: String] = [:]
    /// Why an item cannot be added, by item id, as pickerd answered its media ("IMG_0004.HEIC is no
    /// longer there": one of the person's own files changed or went since it was indexed). Such an
    /// item is left out, says why, and cannot be checked again.
    private var unavailable: [String: String] = [:]
    /// Each tab's suggestions loaded so far, how many there are, and the page request in flight.
    private var loaded: [[Suggestion]] = [[], []]
    private var totals = [0, 0]
    private var pendingPage: [UInt64: Int] = [:]
    private var nextRequestID: UInt64 = 1 << 32
    private var message = ""

    init(client: ProtocolClient, inbox: Inbox) {
        self.client = client
        self.inbox = inbox
    }

    func run() -> Int32 {
        while exitCode == nil {
            for frame in inbox.take() { handle(frame) }
            if exitCode != nil { break }
            if inbox.isClosed {
                finish(1)
                break
            }
            guard terminal != nil else {
                usleep(20_000)
                continue
            }
            _ = term_poll_size()
            draw()
            let key = Int(term_key(100))
            if key == TERM_KEY_CLOSED { cancel() } else if key != TERM_KEY_NONE { press(key) }
        }
        return exitCode ?? 0
    }

    // MARK: Messages from pickerd

    private func handle(_ frame: ReceivedFrame) {
        switch frame.envelope.body {
        case .review(let request)?:
            if terminal == nil {
                guard request.hasTerminal, frame.descriptors.indices.contains(Int(request.terminalFdIndex)),
                      let fd = frame.descriptors[Int(request.terminalFdIndex)].descriptor,
                      term_open(fd.rawValue, request.terminalType) == 0 else {
                    // No terminal to draw on: the person cannot decide here, so nothing is released.
                    send(.reviewDecision(ReviewDecision(sessionHandle: request.sessionHandle, decision: .cancel(Cancelled()))), id: frame.envelope.requestId)
                    finish(1)
                    return
                }
                terminal = frame.descriptors[Int(request.terminalFdIndex)]
            }
            review = request
            reviewID = frame.envelope.requestId
            if request.appApprovalNeeded {
                approvalButton = 1
                screen = .approval
                // Keys typed before the question was on screen do not answer it.
                if let fd = terminal?.descriptor { tcflush(fd.rawValue, TCIFLUSH) }
            } else if request.consentNeeded {
                categories = request.categories
                screen = .consent
            } else {
                screen = .list
                loaded = [request.recommended, request.recent]
                totals = [max(Int(request.recommendedTotal), request.recommended.count), max(Int(request.recentTotal), request.recent.count)]
                pendingPage = [:]
                if let preloaded = request.preloaded, !request.preloadedSuggestionId.isEmpty, preloaded.id == request.preloadedSuggestionId {
                    open(preloaded)
                }
            }
        case .dismiss?:
            finish(0)
        case .suggestionsPageReply(let page)?:
            // Appended only where it continues the list (a late reply to an older review is dropped).
            if let tab = pendingPage.removeValue(forKey: frame.envelope.requestId), Int(page.offset) == loaded[tab].count {
                loaded[tab] += page.suggestions
                totals[tab] = max(Int(page.total), loaded[tab].count)
            }
        case .fetchMediaReply(let reply)?:
            pendingMedia[frame.envelope.requestId] = nil
            if !reply.unavailable.isEmpty {
                // pickerd would leave it out of the release anyway: the person sees it unchecked, and why.
                unavailable[reply.itemId] = reply.unavailable
                previews[reply.itemId] = .some(nil)
                for index in suggestion.items.indices where suggestion.items[index].id == reply.itemId && kept.indices.contains(index) {
                    kept[index] = false
                }
                return
            }
            var image: PixelImage?
            // A still if there is one (a Live Photo's image), else a clip's first frame.
            let stillsFirst = reply.media.filter { $0.contentType == "image/png" } + reply.media.filter { $0.contentType != "image/png" }
            for media in stillsFirst where media.hasFd && image == nil {
                guard frame.descriptors.indices.contains(Int(media.fdIndex)), let fd = frame.descriptors[Int(media.fdIndex)].descriptor else { continue }
                switch media.contentType {
                case "image/png": image = PixelImage(png: Self.readAll(fd))
                case "video/x-yuv4mpeg2", "video/yuv4mpeg": image = PixelImage(y4m: Self.readAll(fd))
                default: break
                }
            }
            previews[reply.itemId] = .some(image)
        case .cyclePromptReply(let reply)?:
            if let item = reply.item, suggestion.items.indices.contains(itemIndex) {
                suggestion.items[itemIndex] = item
                suggestion.title = reply.title
                if !titleEdited { title = reply.title }
                message = "Another prompt"
            }
        case .error(let error)?:
            if let itemID = pendingMedia.removeValue(forKey: frame.envelope.requestId) {
                previews[itemID] = .some(nil)
                // Media are fetched ahead: only the item on screen speaks up.
                guard suggestion.items.indices.contains(itemIndex), suggestion.items[itemIndex].id == itemID else { return }
            }
            message = error.message
        default:
            break
        }
    }

    // MARK: Keys

    private func press(_ key: Int) {
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
        send(.appApproval(AppApprovalDecision(sessionHandle: review.sessionHandle, allow: allow)), id: reviewID)
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
            send(.consentDecision(ConsentDecision(sessionHandle: review.sessionHandle, answer: .accept)), id: reviewID)
            screen = .waiting
        case 1:
            categoryIndex = 0
            screen = .customize
        case 2:
            screen = .about
        default:
            term_close()
            send(.consentDecision(ConsentDecision(sessionHandle: review.sessionHandle, answer: .decline)), id: reviewID)
            finish(0)
        }
    }

    private func customizeKey(_ key: Int) {
        switch key {
        case TERM_KEY_UP: categoryIndex = max(0, categoryIndex - 1)
        case TERM_KEY_DOWN: categoryIndex = min(categories.count - 1, categoryIndex + 1)
        case Self.code(" "): if categories.indices.contains(categoryIndex) { categories[categoryIndex].enabled.toggle() }
        case TERM_KEY_ENTER:
            send(.consentDecision(ConsentDecision(sessionHandle: review.sessionHandle, answer: .customize, categories: categories)), id: reviewID)
            screen = .waiting
        case 27, TERM_KEY_BACKSPACE: screen = .consent
        default: break
        }
    }

    private var list: [Suggestion] { loaded[tab] }

    /// Asks for the tab's next page when the selection comes within ten of the end of what is loaded.
    private func loadMoreIfNeeded() {
        guard loaded[tab].count < totals[tab], selection[tab] >= loaded[tab].count - 10, !pendingPage.values.contains(tab) else { return }
        let id = takeRequestID()
        pendingPage[id] = tab
        send(.suggestionsPage(SuggestionsPageRequest(sessionHandle: review.sessionHandle, list: tab == 0 ? .recommended : .recent,
                                                     offset: UInt32(loaded[tab].count), limit: 50)), id: id)
    }

    private func listKey(_ key: Int) {
        switch key {
        case TERM_KEY_UP: selection[tab] = max(0, selection[tab] - 1)
        case TERM_KEY_DOWN: selection[tab] = min(max(0, list.count - 1), selection[tab] + 1)
        case TERM_KEY_PAGE_UP: selection[tab] = max(0, selection[tab] - 5)
        case TERM_KEY_PAGE_DOWN: selection[tab] = min(max(0, list.count - 1), selection[tab] + 5)
        case 9, TERM_KEY_BACKTAB, TERM_KEY_LEFT, TERM_KEY_RIGHT: tab = 1 - tab
        case TERM_KEY_ENTER: if list.indices.contains(selection[tab]) { open(list[selection[tab]]) }
        case Self.code("x"): if review.showPrivacyBanner { bannerDismissed = true }
        case Self.code("?"): screen = .learnMore
        case 27, Self.code("q"), 3: cancel()
        default: break
        }
        loadMoreIfNeeded()
    }

    private func open(_ chosen: Suggestion) {
        // What could not be added before is asked again: the folder may be back.
        for id in unavailable.keys { previews[id] = nil }
        unavailable = [:]
        suggestion = chosen
        kept = Array(repeating: true, count: chosen.items.count)
        title = chosen.title
        titleEdited = false
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
            if let reason = unavailable[suggestion.items[itemIndex].id] {
                message = "Cannot be added: \(reason)"
            } else {
                kept[itemIndex].toggle()
            }
        case Self.code("e"):
            editBuffer = title
            screen = .editTitle
        case Self.code("p"):
            guard suggestion.items.indices.contains(itemIndex), case .reflection? = suggestion.items[itemIndex].asset else {
                message = "Only a reflection prompt can be changed"
                return
            }
            send(.cyclePrompt(CyclePromptRequest(sessionHandle: review.sessionHandle, suggestionId: suggestion.id,
                                                 itemId: suggestion.items[itemIndex].id)), id: takeRequestID())
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

    private func editKey(_ key: Int) {
        switch key {
        case TERM_KEY_ENTER:
            let trimmed = editBuffer.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty && trimmed != title {
                title = trimmed
                titleEdited = trimmed != suggestion.title
            }
            screen = .review
        case 27: screen = .review
        case TERM_KEY_BACKSPACE: if !editBuffer.isEmpty { editBuffer.removeLast() }
        case 21: editBuffer = ""  // Ctrl-U, as in a shell
        default:
            if key >= 32, key < 0x110000, key != 127, let scalar = Unicode.Scalar(UInt32(key)), editBuffer.count < 120 {
                editBuffer.unicodeScalars.append(scalar)
            }
        }
    }

    // MARK: Decisions

    private func approve() {
        let keptIDs = suggestion.items.indices.filter { kept[$0] }.map { suggestion.items[$0].id }
        var approval = Approval(suggestionId: suggestion.id, keptItemIds: keptIDs)
        if titleEdited {
            approval.titleEdited = true
            approval.title = title
        }
        // The terminal goes back to the app before the app hears the outcome.
        term_close()
        send(.reviewDecision(ReviewDecision(sessionHandle: review.sessionHandle, privacyBannerDismissed: bannerDismissed,
                                            decision: .approve(approval))), id: reviewID)
        finish(0)
    }

    private func cancel() {
        term_close()
        send(.reviewDecision(ReviewDecision(sessionHandle: review.sessionHandle, privacyBannerDismissed: bannerDismissed,
                                            decision: .cancel(Cancelled()))), id: reviewID)
        finish(0)
    }

    private func finish(_ code: Int32) {
        term_close()
        terminal = nil
        exitCode = code
        client.close()
    }

    private func send(_ body: Envelope.Body, id: UInt64) {
        try? client.connection.send(Envelope(requestId: id, body: body))
    }

    private func takeRequestID() -> UInt64 {
        nextRequestID += 1
        return nextRequestID
    }

    // MARK: Drawing

    private var rows: Int32 { term_rows() }
    private var columns: Int32 { term_cols() }

    private func draw() {
        term_erase()
        term_cursor(0, 0, 0)
        switch screen {
        case .waiting: text(rows / 2, 2, "One moment…", color: 6)
        case .approval: drawApproval()
        case .consent: drawConsent()
        case .customize: drawCustomize()
        case .about: drawPage("About Journaling Suggestions", Self.aboutText, help: "any key: back")
        case .learnMore: drawPage("Your privacy", Self.privacyText(app: review.appDisplayName), help: "any key: back")
        case .list: drawList()
        case .review, .editTitle: drawReview()
        }
        term_refresh()
    }

    private func text(_ row: Int32, _ column: Int32, _ string: String, bold: Bool = false, reverse: Bool = false, color: Int32 = 0) {
        var attributes: Int32 = color << 8
        if bold { attributes |= Int32(TERM_BOLD) }
        if reverse { attributes |= Int32(TERM_REVERSE) }
        term_text(row, column, string, attributes)
    }

    private func help(_ line: String) {
        text(rows - 1, 0, String(repeating: " ", count: Int(columns)), reverse: true)
        text(rows - 1, 1, line, reverse: true)
    }

    private func header(_ string: String) {
        text(0, 1, string, bold: true, color: 7)
        text(1, 0, String(repeating: "─", count: Int(columns)), color: 6)
    }

    /// The question about an app not yet allowed. The question is drawn whole, and the buttons are
    /// never pushed off the screen: what explains it is left out, paragraph by paragraph, when the
    /// terminal is short.
    private func drawApproval() {
        let app = review.appDisplayName
        header("Allow \(app)?")
        let width = Int(columns) - 4
        let lastButtonRow = rows - 2
        var row: Int32 = 3
        let origin = review.appOrigin.isEmpty ? "" : " — \(review.appOrigin) —"
        for line in Self.wrapBreakingWords("\(app)\(origin) wants to show you journaling suggestions.", width) where row < lastButtonRow - 1 {
            text(row, 2, line, bold: true)
            row += 1
        }
        var explanation = [Self.approvalText(app: app, kind: review.appKind),
                           "If you allow it, \(app) may open this picker from now on, until you revoke it (pickerctl apps revoke). It still receives only what you choose to add."]
        if !review.appBundleId.isEmpty { explanation.append("App id: \(review.appBundleId)") }
        for (index, paragraph) in explanation.enumerated() {
            let lines = Self.wrapBreakingWords(paragraph, width)
            // A blank line, the paragraph, a blank line, the buttons.
            guard row + Int32(lines.count) + 2 <= lastButtonRow else { break }
            row += 1
            for line in lines {
                text(row, 2, line, color: index == 0 ? 0 : 6)
                row += 1
            }
        }
        row = min(row + 1, lastButtonRow)
        var column: Int32 = 2
        for (index, label) in ["Allow", "Don't Allow"].enumerated() {
            let button = "[ \(label) ]"
            text(row, column, button, bold: index == approvalButton, reverse: index == approvalButton, color: index == approvalButton ? 3 : 1)
            column += Int32(button.count) + 2
        }
        help("←/→ choose  Enter select  a allow  d don't allow")
    }

    /// Why the person is asked, by how pickerd knows the app.
    static func approvalText(app: String, kind: AppKind) -> String {
        switch kind {
        case .developer:
            "A program registered \(app) with pickerd (pickerctl apps register). Allow it only if you built it yourself or know where it came from."
        case .flatpak:
            "\(app) is a Flatpak app that the system has not allowed to show journaling suggestions."
        case .system:
            "\(app) was installed by the system, and you took back its permission to show journaling suggestions."
        default:
            "\(app) is not one the system allowed to show journaling suggestions."
        }
    }

    private func drawConsent() {
        header("Journaling Suggestions")
        var row: Int32 = 3
        for line in Self.wrap("\(review.appDisplayName) would like to show you suggestions for your journal, made on this device from your photos, workouts, places, music, contacts and moods.", Int(columns) - 4) {
            text(row, 2, line)
            row += 1
        }
        row += 1
        for line in Self.wrap("Suggestions stay on this device. An app receives only what you choose to add, and only when you add it.", Int(columns) - 4) {
            text(row, 2, line, color: 6)
            row += 1
        }
        row += 1
        var column: Int32 = 2
        for (index, label) in ["Turn On", "Customize", "About", "Not Now"].enumerated() {
            let button = "[ \(label) ]"
            text(row, column, button, bold: index == 0, reverse: index == consentButton, color: index == consentButton ? 3 : 1)
            column += Int32(button.count) + 2
        }
        help("←/→ choose  Enter select  t turn on  c customize  a about  n not now")
    }

    private func drawCustomize() {
        header("Customize Journaling Suggestions")
        text(3, 2, "Choose what suggestions may be made from:")
        for (index, setting) in categories.enumerated() {
            let mark = setting.enabled ? "[x]" : "[ ]"
            text(5 + Int32(index), 4, "\(mark) \(Self.categoryLabel(setting.category))", reverse: index == categoryIndex,
                 color: index == categoryIndex ? 3 : setting.enabled ? 4 : 0)
        }
        help("↑/↓ move  Space turn on/off  Enter turn on with these  Esc back")
    }

    private func drawPage(_ heading: String, _ body: String, help line: String) {
        header(heading)
        var row: Int32 = 3
        for paragraph in body.split(separator: "\n", omittingEmptySubsequences: false) {
            for wrapped in Self.wrap(String(paragraph), Int(columns) - 4) where row < rows - 2 {
                text(row, 2, wrapped)
                row += 1
            }
        }
        help(line)
    }

    private func drawList() {
        header("Journaling Suggestions · \(review.appDisplayName)")
        var row: Int32 = 2
        if review.showPrivacyBanner && !bannerDismissed {
            let banner = " \(review.appDisplayName) gets only what you choose to add.  ? learn more  x dismiss "
            text(row, 0, String(repeating: " ", count: Int(columns)), color: 2)
            text(row, 1, banner, bold: true, color: 2)
            row += 1
        }
        let tabs = [("Recommended", totals[0]), ("Recent", totals[1])]
        var column: Int32 = 1
        for (index, (name, count)) in tabs.enumerated() {
            let label = " \(name) (\(count)) "
            text(row, column, label, bold: index == tab, reverse: index == tab, color: index == tab ? 3 : 1)
            column += Int32(label.count) + 1
        }
        row += 2
        let entries = list
        guard !entries.isEmpty else {
            text(row, 2, "No suggestions yet.", color: 6)
            help("Tab switch list  Esc cancel")
            return
        }
        let perEntry: Int32 = 2
        let visible = max(1, Int((rows - 1 - row) / perEntry))
        let first = max(0, min(selection[tab] - visible / 2, entries.count - visible))
        for index in first..<min(entries.count, first + visible) {
            let entry = entries[index]
            let selected = index == selection[tab]
            let marker = selected ? "›" : " "
            text(row, 1, "\(marker) \(entry.title)", bold: selected, reverse: selected, color: selected ? 3 : 0)
            text(row + 1, 3, "\(Self.range(entry.date))   \(Self.contents(entry.items))", color: 6)
            row += perEntry
        }
        help("↑/↓ choose  Enter review  Tab Recommended/Recent  ? privacy  \(review.showPrivacyBanner && !bannerDismissed ? "x dismiss banner  " : "")Esc cancel")
    }

    private func drawReview() {
        let items = suggestion.items
        guard items.indices.contains(itemIndex) else { return }
        let keptCount = kept.filter { $0 }.count
        let unavailableCount = items.filter { unavailable[$0.id] != nil }.count
        fetchNextMedia()
        header("Review · \(review.appDisplayName)")
        if screen == .editTitle {
            text(2, 1, "Title: ", bold: true)
            text(2, 8, editBuffer + " ", reverse: true)
            term_cursor(1, 2, 8 + Int32(editBuffer.count))
        } else {
            text(2, 1, title, bold: true)
        }
        text(3, 1, "\(Self.range(suggestion.date))   keeping \(keptCount) of \(items.count)"
             + (unavailableCount > 0 ? "   \(unavailableCount) cannot be added" : ""), color: 6)
        // The terminal's landscape: side by side when wide, stacked otherwise.
        let wide = columns >= 120 && rows >= 30
        let top: Int32 = 5
        let bottom = rows - 3
        let carouselWidth: Int32 = wide ? columns * 3 / 5 : columns
        let carouselHeight: Int32 = wide ? bottom - top : max(6, (bottom - top) / 2)
        drawCarousel(row: top, column: 0, width: carouselWidth, height: carouselHeight)
        let listTop = wide ? top : top + carouselHeight + 1
        let listColumn: Int32 = wide ? carouselWidth + 1 : 0
        let listHeight = bottom - listTop
        text(listTop - (wide ? 0 : 1), listColumn + 1, wide ? "All items" : "── All items " + String(repeating: "─", count: max(0, Int(columns) - 14)), color: 6)
        let start = wide ? listTop + 1 : listTop
        let visible = max(1, Int(listHeight - (wide ? 1 : 0)))
        let first = max(0, min(itemIndex - visible / 2, items.count - visible))
        for index in first..<min(items.count, first + visible) {
            let item = items[index]
            let selected = index == itemIndex
            let mark = kept[index] ? "[x]" : "[ ]"
            var line = "\(mark) \(Self.glyph(item)) \(item.asset?.summary ?? "")"
            if let reason = unavailable[item.id] {
                // Why, when it fits; the carousel says it in full.
                let why = "  ✗ left out: \(reason)"
                line += line.count + why.count <= Int(columns - listColumn - 2) ? why : "  ✗ left out"
            }
            text(start + Int32(index - first), listColumn + 1, line, reverse: selected, color: selected ? 3 : kept[index] ? 4 : 5)
        }
        let button = "[ \(review.buttonTitle.isEmpty ? "Add to \(review.appDisplayName)" : review.buttonTitle) ]"
        text(rows - 2, 1, button, bold: true, color: keptCount > 0 ? 1 : 6)
        if !message.isEmpty { text(rows - 2, Int32(button.count) + 3, message, color: 5) }
        if screen == .editTitle {
            help("type the title  Ctrl-U clear  Enter keep it  Esc leave it as it was")
        } else {
            let prompt = { if case .reflection? = items[itemIndex].asset { return "p another prompt  " } else { return "" } }()
            help("←/→ item  Space keep/leave out  e edit title  \(prompt)Enter add  b back  Esc cancel")
        }
    }

    private func drawCarousel(row: Int32, column: Int32, width: Int32, height: Int32) {
        let item = suggestion.items[itemIndex]
        let hasImage = Self.imageMedia(item) != nil
        let pictureWidth: Int32 = hasImage ? min(width / 2, height * 2 + 4) : 0
        let reason = unavailable[item.id]
        if hasImage {
            if let image = previews[item.id] ?? nil, term_colors() > 0 {
                for (r, line) in image.cells(columns: Int(pictureWidth), rows: Int(height)).enumerated() {
                    for (c, cell) in line.enumerated() {
                        if let cell { term_pixels(row + Int32(r), column + 1 + Int32(c), cell.top, cell.bottom) }
                    }
                }
            } else {
                let placeholder = previews[item.id] == nil ? "loading…" : reason != nil ? "unavailable" : "no preview"
                text(row + height / 2, column + 1 + max(0, (pictureWidth - Int32(placeholder.count)) / 2), placeholder, color: reason != nil ? 5 : 6)
            }
        }
        let left = column + pictureWidth + 2
        text(row, left, "\(itemIndex + 1) of \(suggestion.items.count)  \(Self.glyph(item)) \(Self.kindLabel(item))", bold: true, color: 1)
        var line = row + 2
        for detail in Self.details(item) {
            for wrapped in Self.wrap(detail, Int(width - left - 1)) where line < row + height {
                text(line, left, wrapped)
                line += 1
            }
        }
        if line < row + height {
            let status = kept[itemIndex] ? "✓ will be added" : reason.map { "✗ left out: \($0), so it cannot be added" } ?? "✗ left out"
            line = line + 1 < row + height ? line + 1 : line
            for wrapped in Self.wrap(status, Int(width - left - 1)) where line < row + height {
                text(line, left, wrapped, color: kept[itemIndex] ? 4 : 5)
                line += 1
            }
        }
    }

    /// Asks pickerd for one item's media at a time, the one shown first and then the rest in order,
    /// so each line says whether its item can still be added and previews are ready when reached.
    private func fetchNextMedia() {
        guard pendingMedia.isEmpty else { return }
        let items = suggestion.items
        let order = items.indices.contains(itemIndex) ? [itemIndex] + items.indices.filter { $0 != itemIndex } : Array(items.indices)
        guard let next = order.first(where: { Self.imageMedia(items[$0]) != nil && previews[items[$0].id] == nil }) else { return }
        let id = takeRequestID()
        pendingMedia[id] = items[next].id
        send(.fetchMedia(FetchMediaRequest(sessionHandle: review.sessionHandle, itemId: items[next].id)), id: id)
    }

    // MARK: Words and glyphs

    static func code(_ character: Character) -> Int { Int(character.unicodeScalars.first!.value) }

    /// How the picker marks and names each kind of item: a glyph, the carousel's label, and the noun
    /// it is counted in ("2 photos").
    private static let kinds: [AssetKind: (glyph: String, label: String, noun: String)] = [
        .photo: ("▣", "Photo", "photo"), .livePhoto: ("◎", "Live Photo", "live photo"), .video: ("▶", "Video", "video"),
        .workout: ("⚑", "Workout", "workout"), .workoutGroup: ("⚑", "Workouts", "workout group"),
        .contact: ("☺", "Contact", "contact"), .location: ("⌖", "Place", "place"), .locationGroup: ("⌖", "Places", "place group"),
        .song: ("♪", "Song", "song"), .podcast: ("☊", "Podcast", "podcast"), .motionActivity: ("↟", "Steps", "step count"),
        .genericMedia: ("♫", "Media", "media item"), .reflection: ("✎", "Reflection prompt", "prompt"),
        .stateOfMind: ("☼", "State of mind", "mood"),
    ]

    static func kind(_ item: Item) -> AssetKind? { item.asset.map(AssetKind.init) }

    static func kindLabel(_ item: Item) -> String { kind(item).flatMap { kinds[$0]?.label } ?? "Item" }

    static func glyph(_ item: Item) -> String { kind(item).flatMap { kinds[$0]?.glyph } ?? "•" }

    /// "▣ 2 photos  ♪ 1 song": what a suggestion holds.
    static func contents(_ items: [Item]) -> String {
        var order: [AssetKind?] = []
        var counts: [AssetKind?: Int] = [:]
        for item in items {
            let kind = kind(item)
            if counts[kind] == nil { order.append(kind) }
            counts[kind, default: 0] += 1
        }
        return order.map { kind in
            let count = counts[kind]!
            let marks = kind.flatMap { kinds[$0] } ?? (glyph: "•", label: "Item", noun: "item")
            return "\(marks.glyph) \(count) \(marks.noun)\(count == 1 ? "" : "s")"
        }.joined(separator: "  ")
    }

    static func imageMedia(_ item: Item) -> Media? {
        switch item.asset {
        case .photo(let p)?: return p.photo
        case .livePhoto(let p)?: return p.image
        case .contact(let c)?: return c.photo
        case .song(let s)?: return s.artwork
        case .podcast(let p)?: return p.artwork
        case .video(let v)?: return v.url
        default: return nil
        }
    }

    /// What the carousel says about an item.
    static func details(_ item: Item) -> [String] {
        var lines = [item.asset?.summary ?? ""]
        switch item.asset {
        case .photo(let p)?: lines.append(date(p.date))
        case .livePhoto(let p)?: lines.append(date(p.date))
        case .video(let v)?: lines.append(date(v.date))
        case .workout(let w)?:
            if let d = w.details {
                lines.append(range(d.date))
                if let e = d.activeEnergyBurned { lines.append(String(format: "%.0f %@ active", e.value, e.unit)) }
                if let h = d.averageHeartRate { lines.append(String(format: "average heart rate %.0f %@", h.value, h.unit)) }
            }
        case .location(let l)?: lines.append(date(l.date))
        case .song(let s)?:
            lines.append("album \(s.album)")
            lines.append(date(s.date))
        case .podcast(let p)?: lines.append(date(p.date))
        case .motionActivity(let m)?: lines.append(range(m.date))
        case .genericMedia(let g)?: lines.append(date(g.date))
        case .stateOfMind(let s)?:
            if let state = s.state {
                lines.append("feeling: " + state.labels.map { "\($0)" }.joined(separator: ", "))
                lines.append(date(state.date))
            }
        default: break
        }
        return lines.filter { !$0.isEmpty }
    }

    static func categoryLabel(_ category: PickerdWire.Category) -> String {
        switch category {
        case .activity: "Activity (workouts, steps)"
        case .media: "Media (music, podcasts)"
        case .contacts: "Contacts"
        case .photos: "Photos and videos"
        case .significantLocations: "Significant locations"
        case .reflectionPrompts: "Reflection prompts"
        case .stateOfMind: "State of mind"
        default: "\(category)"
        }
    }

    private static let dayFormat: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "EEE d MMM, HH:mm"
        return f
    }()

    static func date(_ timestamp: Timestamp?) -> String {
        guard let timestamp, timestamp.unixMs != 0 else { return "" }
        return dayFormat.string(from: Date(unixMs: timestamp.unixMs))
    }

    static func range(_ interval: PickerdWire.DateInterval?) -> String {
        guard let interval else { return "" }
        let start = date(Timestamp(unixMs: interval.startUnixMs)), end = date(Timestamp(unixMs: interval.endUnixMs))
        guard start != end else { return start }
        return start.prefix(10) == end.prefix(10) ? "\(start)–\(end.suffix(5))" : "\(start) – \(end)"
    }

    static func wrap(_ text: String, _ width: Int) -> [String] {
        guard width > 4 else { return [text] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// As ``wrap(_:_:)``, with a word longer than a line (a path) broken across lines rather than cut off.
    static func wrapBreakingWords(_ text: String, _ width: Int) -> [String] {
        guard width > 4 else { return [text] }
        let words = text.split(separator: " ").flatMap { word -> [Substring] in
            var rest = word
            var parts: [Substring] = []
            while rest.count > width {
                parts.append(rest.prefix(width))
                rest = rest.dropFirst(width)
            }
            return parts + [rest]
        }
        return wrap(words.joined(separator: " "), width)
    }

    static func readAll(_ fd: FileDescriptor) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset = 0
        while bytes.count < 64 << 20 {
            let n = buffer.withUnsafeMutableBytes { pread(fd.rawValue, $0.baseAddress, $0.count, offset) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
            offset += n
        }
        return bytes
    }

    static let aboutText = """
        Journaling Suggestions groups what happened in your days (photos, workouts, places you went, music, the people you were with, and how you felt) into moments you might want to write about.

        Suggestions are made on this device by pickerd, which keeps your data to itself. When an app asks, this picker, not the app, shows you the suggestions. The app receives only the items you add, after you review them.

        You can turn categories off at any time with pickerctl settings.
        """

    static func privacyText(app: String) -> String {
        """
        \(app) cannot see your suggestions. This picker runs in a separate process started by pickerd, and draws on your terminal itself: \(app) only waits for the answer.

        When you choose a suggestion, you review each item and can leave any out or change the title. \(app) receives only what you keep, when you press Add. If you cancel, \(app) receives nothing.

        Photos are sent without their location unless you keep the place too. pickerctl history lists everything you have added to any app.
        """
    }
}
