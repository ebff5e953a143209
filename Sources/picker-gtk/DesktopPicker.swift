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
        case hide, fewer, undo, namePlace, placeEntry, placeDone
        /// The lists' rows past the first screenful, a few at a time.
        case moreRows = 30
        case recommendedList = 40, recentList, itemList
        static let categoryBase: Int32 = 1000
        static let itemBase: Int32 = 2000
        /// The options of "Show fewer like this", by index.
        static let fewerBase: Int32 = 3000
    }

    enum Screen { case waiting, approval, consent, customize, about, lists, learnMore, review, fewer, namePlace }

    /// A preview of an item, as pickerd sent it.
    enum Preview {
        case encoded([UInt8])
        case pixels(PixelImage)
        case none
    }

    private let client: ProtocolClient
    let session: ReviewSession
    private var inbox: Inbox!
    var window: OpaquePointer?
    private(set) var exitCode: Int32 = 0
    var screen = Screen.waiting
    var ended = false
    /// Screens shown so far: the number each drawn screen is marked with (`_PICKERD_SCREEN`).
    var shownCount = 0
    let trace = PickerTrace(picker: "picker-gtk")

    var categories: [CategorySetting] = []
    var tab = ReviewSession.List.recommended
    var itemIndex = 0
    var editingTitle = false
    /// "Show fewer like this": what it offers for the suggestion under review.
    var fewerOptions: [HideOption] = []
    /// "Name this place": the item whose place is being named, and what it is called now.
    var naming: (index: Int, label: String)?
    /// What the last hide did, shown over the lists with its undo.
    var notice = ""
    /// Previews by item id, fetched once per window.
    private var previews: [String: Preview] = [:]
    /// Items whose previews are wanted, in order; one request is on its way at a time.
    private var wanted: [String] = []

    /// The widgets of the screen shown; all of them go when the screen changes.
    struct Widgets {
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
    var widgets = Widgets()
    /// The control the screen being built gives the focus to (``focusFirst()``).
    var firstFocus: OpaquePointer?

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

    // MARK: Frames from pickerd

    func receive() {
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
        case .placeNamed(let index, let name):
            // The title and the visit say the name now.
            if screen == .review {
                show(.review)
                select(item: index, moveList: true)
            }
            say(PickerWords.placeNamed(name))
        case .refused(let message, let itemID):
            if let itemID {
                previews[itemID] = Preview.none
                fetchNext()
                // Previews are fetched ahead: only the item on screen speaks up.
                guard screen == .review, session.suggestion.items.indices.contains(itemIndex),
                      session.suggestion.items[itemIndex].id == itemID else { return }
            }
            complain(message)
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

    func answerApproval(allow: Bool) {
        session.answerApproval(allow: allow)
        if allow { show(.waiting) } else { end(0) }
    }

    func declineConsent() {
        session.answerConsent(.decline)
        end(0)
    }

    func open(_ suggestion: Suggestion) {
        // What could not be added before is asked again: the folder may be back.
        for id in session.unavailable.keys { previews[id] = nil }
        session.open(suggestion)
        itemIndex = 0
        editingTitle = false
        show(.review)
    }

    func toggle(_ index: Int, to keep: Bool) {
        guard session.kept.indices.contains(index) else { return }
        if let reason = session.setKept(index, keep) { complain("Cannot be added: \(reason)") } else { say("") }
        refreshItems()
    }

    func add() {
        guard session.keptCount > 0 else {
            complain(session.suggestion.items.allSatisfy { session.unavailable[$0.id] != nil }
                ? "None of these can be added now: Cancel" : "Keep at least one item, or Cancel")
            return
        }
        session.approve()
        end(0)
    }

    func cancel() {
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
    func want(_ itemID: String, urgent: Bool = false) {
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
    func picture(_ itemID: String, width: Int32, height: Int32, alternative: String, glyph: String = "▣") -> OpaquePointer {
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

    /// A line under the review's lists (or the page's), as news: "Another prompt", "Called “Nonna's”
    /// from now on".
    func say(_ message: String) {
        guard let label = widgets.message else { return }
        pw_label_set(label, message)
        pw_label_set_error(label, 0)
    }

    /// A line under the review's lists (or the page's), in the error style: what could not be done.
    func complain(_ message: String) {
        guard let label = widgets.message else { return }
        pw_label_set(label, message)
        pw_label_set_error(label, 1)
    }

    func log(_ line: String) {
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
