import CTerminal
import Foundation
import Glibc
import PickerKit
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

/// The picker's screens and the person's keys. Runs on one thread.
final class PickerScreen {
    enum Screen { case waiting, approval, consent, customize, about, list, learnMore, review, editTitle, fewer, namePlace }

    private let client: ProtocolClient
    private let inbox: Inbox
    /// Readable when the inbox has frames (the read end of its wake pipe).
    private let wake: Int32
    let session: ReviewSession
    let trace = PickerTrace(picker: "picker-agent")
    /// Something changed since the screen was last drawn.
    private var dirty = true
    /// Screens drawn so far, for the trace.
    var drawnCount = 0
    private var terminal: OwnedFileDescriptor?
    var review: ReviewRequest { session.review }
    var screen = Screen.waiting
    private var exitCode: Int32?

    /// On the approval sheet: 0 Allow, 1 Don't Allow (where it starts: an Enter pressed without
    /// reading allows nothing).
    var approvalButton = 1
    var consentButton = 0
    var categories: [CategorySetting] = []
    var categoryIndex = 0
    var tab = 0
    var selection = [0, 0]

    var suggestion: Suggestion { session.suggestion }
    var kept: [Bool] { session.kept }
    var title: String { session.title }
    var unavailable: [String: String] { session.unavailable }
    var totals: [Int] { session.totals }
    var itemIndex = 0
    var editBuffer = ""
    var previews: [String: PixelImage?] = [:]
    var message = ""
    /// "Show fewer like this": what it offers, and which is chosen.
    var fewerOptions: [HideOption] = []
    var fewerIndex = 0
    /// "Name this place": the item whose place is being named, and what it is called now.
    var naming: (index: Int, label: String)?
    /// What the last hide did, shown with its undo until the picker closes or it is undone.
    var notice = ""

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
            case .placeNamed(_, let name):
                message = PickerWords.placeNamed(name)
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

    // MARK: Decisions

    func approve() {
        // The terminal goes back to the app before the app hears the outcome.
        term_close()
        session.approve()
        finish(0)
    }

    func cancel() {
        term_close()
        session.cancel()
        finish(0)
    }

    func finish(_ code: Int32) {
        term_close()
        terminal = nil
        exitCode = code
        client.close()
    }

    private func send(_ body: Envelope.Body, id: UInt64) {
        try? client.connection.send(Envelope(requestId: id, body: body))
    }

    /// Asks pickerd for one item's media at a time, the one shown first and then the rest in order,
    /// so each line says whether its item can still be added and previews are ready when reached.
    func fetchNextMedia() {
        guard !session.fetchingMedia else { return }
        let items = suggestion.items
        let order = items.indices.contains(itemIndex) ? [itemIndex] + items.indices.filter { $0 != itemIndex } : Array(items.indices)
        guard let next = order.first(where: { PickerWords.imageMedia(items[$0]) != nil && previews[items[$0].id] == nil }) else { return }
        session.fetchMedia(items[next].id)
    }

    static func code(_ character: Character) -> Int { Int(character.unicodeScalars.first!.value) }
}
