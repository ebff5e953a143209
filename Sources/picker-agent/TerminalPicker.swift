import CTerminal
import Foundation
import Glibc
import PickerKit
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
        // The inbox's thread wakes the picker's loop through a pipe, so a frame from pickerd is drawn
        // at once rather than when the wait for a key times out.
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else {
            FileHandle.standardError.write(Data("picker-agent: pipe: \(Errno(rawValue: errno))\n".utf8))
            return 3
        }
        for end in wake {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        let writeEnd = wake[1]
        let inbox = Inbox(client.connection) {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
        return PickerScreen(client: client, inbox: inbox, wake: wake[0]).run()
    }
}

/// The picker's screens and the person's keys. Runs on one thread.
final class PickerScreen {
    enum Screen { case waiting, approval, consent, customize, about, list, learnMore, review, editTitle, fewer }

    private let client: ProtocolClient
    private let inbox: Inbox
    /// Readable when the inbox has frames (the read end of its wake pipe).
    private let wake: Int32
    private let session: ReviewSession
    private let trace = PickerTrace(picker: "picker-agent")
    /// Something changed since the screen was last drawn.
    private var dirty = true
    /// Screens drawn so far, for the trace.
    private var drawnCount = 0
    private var terminal: OwnedFileDescriptor?
    private var review: ReviewRequest { session.review }
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

    private var suggestion: Suggestion { session.suggestion }
    private var kept: [Bool] { session.kept }
    private var title: String { session.title }
    private var unavailable: [String: String] { session.unavailable }
    private var totals: [Int] { session.totals }
    private var itemIndex = 0
    private var editBuffer = ""
    private var previews: [String: PixelImage?] = [:]
    private var message = ""
    /// "Show fewer like this": what it offers, and which is chosen.
    private var fewerOptions: [HideOption] = []
    private var fewerIndex = 0
    /// What the last hide did, shown with its undo until the picker closes or it is undone.
    private var notice = ""

    init(client: ProtocolClient, inbox: Inbox, wake: Int32) {
        self.client = client
        self.inbox = inbox
        self.wake = wake
        session = ReviewSession(connection: client.connection)
    }

    /// Draws only when something changed (a frame, a key, a resize), then waits for whichever comes
    /// next: a key on the terminal or a frame from pickerd. Keys curses has already read are taken
    /// before waiting again.
    func run() -> Int32 {
        while exitCode == nil {
            let frames = inbox.take()
            for frame in frames { handle(frame) }
            if !frames.isEmpty { dirty = true }
            if exitCode != nil { break }
            if inbox.isClosed {
                finish(1)
                break
            }
            guard let tty = terminal?.descriptor?.rawValue else {
                waitForWake(tty: nil, milliseconds: 100)
                continue
            }
            if term_poll_size() != 0 { dirty = true }
            if dirty {
                draw()
                dirty = false
            }
            var key = Int(term_key(0))
            if key == TERM_KEY_NONE {
                // A key's bytes (an arrow's escape sequence) may come apart: curses is given 100 ms
                // to complete one, as before, but only once the terminal has something to read.
                if waitForWake(tty: tty, milliseconds: 250) { key = Int(term_key(100)) }
            }
            if key == TERM_KEY_CLOSED {
                cancel()
            } else if key != TERM_KEY_NONE {
                trace.note("key", String(key))
                press(key)
                dirty = true
            }
        }
        return exitCode ?? 0
    }

    /// Waits up to `milliseconds` for a key on `tty` or a frame (poll(2)); empties the wake pipe.
    /// - Returns: whether the terminal has something to read (or hung up).
    @discardableResult
    private func waitForWake(tty: Int32?, milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        if let tty { fds.append(pollfd(fd: tty, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
        var drain = [UInt8](repeating: 0, count: 64)
        while read(wake, &drain, drain.count) > 0 {}
        return fds.count > 1 && fds[1].revents != 0
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
            switch session.begin(request, id: frame.envelope.requestId) {
            case .approval:
                approvalButton = 1
                screen = .approval
                // Keys typed before the question was on screen do not answer it.
                if let fd = terminal?.descriptor { tcflush(fd.rawValue, TCIFLUSH) }
            case .consent:
                categories = request.categories
                screen = .consent
            case .lists:
                screen = .list
                if let preloaded = session.preloaded { open(preloaded) }
            }
        case .dismiss?:
            finish(0)
        default:
            switch session.answer(frame) {
            case .media(let itemID, let files, let reason):
                if reason != nil {
                    previews[itemID] = .some(nil)
                    return
                }
                var image: PixelImage?
                // A still if there is one (a Live Photo's image), else a clip's first frame.
                for media in files where image == nil {
                    guard let fd = media.fd.descriptor else { continue }
                    switch media.contentType {
                    case "image/png": image = PixelImage(png: PickerWords.readAll(fd))
                    case "video/x-yuv4mpeg2", "video/yuv4mpeg": image = PixelImage(y4m: PickerWords.readAll(fd))
                    default: break
                    }
                }
                previews[itemID] = .some(image)
            case .prompt:
                message = "Another prompt"
            case .hidden(let description):
                // Back to the lists, which no longer hold it; undo stays at hand.
                notice = "\(description).  u undo"
                for list in 0..<2 { selection[list] = min(selection[list], max(0, session.loaded[list].count - 1)) }
                screen = .list
            case .unhidden(let description):
                notice = description
            case .refused(let reason, let itemID):
                if let itemID {
                    previews[itemID] = .some(nil)
                    // Media are fetched ahead: only the item on screen speaks up.
                    guard suggestion.items.indices.contains(itemIndex), suggestion.items[itemIndex].id == itemID else { return }
                }
                message = reason
            case .page, .none:
                break
            }
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
        case .fewer: fewerKey(key)
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

    private var list: [Suggestion] { session.loaded[tab] }

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

    private func open(_ chosen: Suggestion) {
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
        // The terminal goes back to the app before the app hears the outcome.
        term_close()
        session.approve()
        finish(0)
    }

    private func cancel() {
        term_close()
        session.cancel()
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
        case .about: drawPage("About Journaling Suggestions", PickerWords.aboutText, help: "any key: back")
        case .learnMore: drawPage("Your privacy", PickerWords.privacyText(app: review.appDisplayName), help: "any key: back")
        case .list: drawList()
        case .review, .editTitle: drawReview()
        case .fewer: drawFewer()
        }
        term_refresh()
        if trace.isOn {
            drawnCount += 1
            trace.note("drawn", "\(drawnCount) \(screen)")
        }
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
        for line in PickerWords.wrapBreakingWords("\(app)\(origin) wants to show you journaling suggestions.", width) where row < lastButtonRow - 1 {
            text(row, 2, line, bold: true)
            row += 1
        }
        var explanation = [PickerWords.approvalText(app: app, kind: review.appKind),
                           "If you allow it, \(app) may open this picker from now on, until you revoke it (pickerctl apps revoke). It still receives only what you choose to add."]
        if !review.appBundleId.isEmpty { explanation.append("App id: \(review.appBundleId)") }
        for (index, paragraph) in explanation.enumerated() {
            let lines = PickerWords.wrapBreakingWords(paragraph, width)
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

    private func drawConsent() {
        header("Journaling Suggestions")
        var row: Int32 = 3
        for line in PickerWords.wrap("\(review.appDisplayName) would like to show you suggestions for your journal, made on this device from your photos, workouts, places, music, contacts and moods.", Int(columns) - 4) {
            text(row, 2, line)
            row += 1
        }
        row += 1
        for line in PickerWords.wrap("Suggestions stay on this device. An app receives only what you choose to add, and only when you add it.", Int(columns) - 4) {
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
            text(5 + Int32(index), 4, "\(mark) \(PickerWords.categoryLabel(setting.category))", reverse: index == categoryIndex,
                 color: index == categoryIndex ? 3 : setting.enabled ? 4 : 0)
        }
        help("↑/↓ move  Space turn on/off  Enter turn on with these  Esc back")
    }

    private func drawPage(_ heading: String, _ body: String, help line: String) {
        header(heading)
        var row: Int32 = 3
        for paragraph in body.split(separator: "\n", omittingEmptySubsequences: false) {
            for wrapped in PickerWords.wrap(String(paragraph), Int(columns) - 4) where row < rows - 2 {
                text(row, 2, wrapped)
                row += 1
            }
        }
        help(line)
    }

    private func drawList() {
        header("Journaling Suggestions · \(review.appDisplayName)")
        var row: Int32 = 2
        if session.showsBanner {
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
            // Nothing at all: why, and what to do (the same words in every picker).
            for line in PickerWords.wrapBreakingWords(session.emptyListsReason ?? "No suggestions yet.", Int(columns) - 4) where row < rows - 2 {
                text(row, 2, line, color: 6)
                row += 1
            }
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
            text(row + 1, 3, "\(PickerWords.range(of: entry))   \(PickerWords.contents(entry.items))", color: 6)
            row += perEntry
        }
        if !notice.isEmpty { text(rows - 2, 1, notice, color: 5) }
        help("↑/↓ choose  Enter review  Tab Recommended/Recent  ? privacy  \(session.showsBanner ? "x dismiss banner  " : "")\(session.lastHidden != nil ? "u undo  " : "")Esc cancel")
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
        text(3, 1, "\(PickerWords.range(of: suggestion))   keeping \(keptCount) of \(items.count)"
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
            var line = "\(mark) \(PickerWords.glyph(item)) \(item.asset?.summary ?? "")"
            if let reason = unavailable[item.id] {
                // Why, when it fits; the carousel says it in full.
                let why = "  ✗ left out: \(reason)"
                line += line.count + why.count <= Int(columns - listColumn - 2) ? why : "  ✗ left out"
            }
            text(start + Int32(index - first), listColumn + 1, line, reverse: selected, color: selected ? 3 : kept[index] ? 4 : 5)
        }
        let button = "[ \(session.addTitle) ]"
        text(rows - 2, 1, button, bold: true, color: keptCount > 0 ? 1 : 6)
        if !message.isEmpty { text(rows - 2, Int32(button.count) + 3, message, color: 5) }
        if screen == .editTitle {
            help("type the title  Ctrl-U clear  Enter keep it  Esc leave it as it was")
        } else {
            let prompt = { if case .reflection? = items[itemIndex].asset { return "p another prompt  " } else { return "" } }()
            help("←/→ item  Space keep  e title  \(prompt)h hide this  f fewer like this  Enter add  b back  Esc cancel")
        }
    }

    /// "Show fewer like this": the suggestion's people, places and days, and what hiding does.
    private func drawFewer() {
        header("\(PickerWords.showFewer) · \(title)")
        var row: Int32 = 3
        text(row, 2, PickerWords.fewerExplanation, bold: true)
        row += 2
        for (index, option) in fewerOptions.enumerated() where row < rows - 4 {
            let selected = index == fewerIndex
            text(row, 2, "\(selected ? "›" : " ") \(option.label)", bold: selected, reverse: selected, color: selected ? 3 : 0)
            row += 1
        }
        row += 1
        for line in PickerWords.wrap(PickerWords.hideExplanation, Int(columns) - 4) where row < rows - 2 {
            text(row, 2, line, color: 6)
            row += 1
        }
        if !message.isEmpty { text(rows - 2, 2, message, color: 5) }
        help("↑/↓ choose  Enter hide  Esc back")
    }

    private func drawCarousel(row: Int32, column: Int32, width: Int32, height: Int32) {
        let item = suggestion.items[itemIndex]
        let hasImage = PickerWords.imageMedia(item) != nil
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
        text(row, left, "\(itemIndex + 1) of \(suggestion.items.count)  \(PickerWords.glyph(item)) \(PickerWords.kindLabel(item))", bold: true, color: 1)
        var line = row + 2
        for detail in PickerWords.details(item, utcOffsetSeconds: suggestion.localUtcOffsetS) {
            for wrapped in PickerWords.wrap(detail, Int(width - left - 1)) where line < row + height {
                text(line, left, wrapped)
                line += 1
            }
        }
        if line < row + height {
            let status = kept[itemIndex] ? "✓ will be added" : reason.map { "✗ left out: \($0), so it cannot be added" } ?? "✗ left out"
            line = line + 1 < row + height ? line + 1 : line
            for wrapped in PickerWords.wrap(status, Int(width - left - 1)) where line < row + height {
                text(line, left, wrapped, color: kept[itemIndex] ? 4 : 5)
                line += 1
            }
        }
    }

    /// Asks pickerd for one item's media at a time, the one shown first and then the rest in order,
    /// so each line says whether its item can still be added and previews are ready when reached.
    private func fetchNextMedia() {
        guard !session.fetchingMedia else { return }
        let items = suggestion.items
        let order = items.indices.contains(itemIndex) ? [itemIndex] + items.indices.filter { $0 != itemIndex } : Array(items.indices)
        guard let next = order.first(where: { PickerWords.imageMedia(items[$0]) != nil && previews[items[$0].id] == nil }) else { return }
        session.fetchMedia(items[next].id)
    }

    static func code(_ character: Character) -> Int { Int(character.unicodeScalars.first!.value) }
}
