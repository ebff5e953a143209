import Foundation
import Glibc
import PickerdTestKit
import Testing

/// An X display of its own (Xvfb, on a display number it picks itself) with a session bus, where
/// the desktop picker is driven as a person would: keys through XTEST (xdotool), what is on screen
/// read from its accessibility tree (AT-SPI, what a screen reader is told) and from screenshots.
final class XDisplay {
    let directory: String
    let name: String
    private let server: Process
    private let bus: SessionBus
    var busAddress: String { bus.address }

    init() throws {
        let directory = try TemporaryDirectory.forThisRun(prefix: "pkd-x")
        self.directory = directory
        bus = try SessionBus(directory: directory)
        (server, name) = try Self.startServer(directory)
        // The accessibility registry runs before the picker starts, so the picker's window joins it.
        _ = try run("Tools/TestSupport/a11y-tree".absolutePath, [])
    }

    /// Starts Xvfb on a display it chooses itself (`-displayfd` prints the number once it listens)
    /// and checks that a client can open the display, as the desktop picker will; a display that
    /// does not answer is given up and another server started, three times at most.
    ///
    /// `-noreset`: without it an X server resets whenever its last client leaves, and a client that
    /// connects during the reset is refused. Here the last client leaves often (this check, the
    /// accessibility tree, each xdotool), so a picker started at the wrong moment found "no display"
    /// on a server that was running (two CI runs failed so). Three loops of 300 xdotool connections
    /// saw 41 refusals without it and none with it.
    private static func startServer(_ directory: String) throws -> (Process, String) {
        var complaint = ""
        for attempt in 1...3 {
            let (server, number) = try startDaemon("/usr/bin/Xvfb", ["-displayfd", "1", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                                   printingTo: directory + "/display-\(attempt)")
            if let display = Int(number) {
                let answer = try runCommand(URL(fileURLWithPath: "/usr/bin/xdotool"), ["getdisplaygeometry"], environment: ["DISPLAY": ":\(display)"])
                if answer.status == 0 { return (server, ":\(display)") }
                complaint = "display :\(display) does not answer: \(answer.stderr)"
            } else {
                complaint = "Xvfb printed no display number"
            }
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: complaint])
    }

    /// What a program on this display needs: the display and the session bus. GTK paints with cairo:
    /// Xvfb has no GPU, and GL there is llvmpipe, the CPU emulating one (slower, and far slower on a
    /// busy machine).
    var environment: [String: String] { ["DISPLAY": name, "DBUS_SESSION_BUS_ADDRESS": busAddress, "GSK_RENDERER": "cairo"] }

    /// How long a test waits for anything on this display: long, since a busy machine is slow, and
    /// nothing waits this long when it works (every wait ends as soon as what it waits for is there).
    static let patience: Double = 90

    @discardableResult
    func run(_ program: String, _ arguments: [String]) throws -> CommandResult {
        try runCommand(URL(fileURLWithPath: program), arguments, environment: environment)
    }

    /// The first window whose title contains `title`, as xdotool finds it (a decimal id).
    func window(_ title: String) -> String? {
        guard let r = try? run("/usr/bin/xdotool", ["search", "--name", title]), r.status == 0 else { return nil }
        return r.stdout.split(separator: "\n").first.map(String.init)
    }

    /// journal-demo presenting through `pickerd` in the desktop picker on this display, past the
    /// consent sheet (Turn On, which has the focus): the lists are drawn.
    /// - Returns: the app and the picker's window.
    func listsAfterConsent(_ pickerd: RunningPickerd) throws -> (LaunchedApp, String) {
        let app = try LaunchedApp(pickerd, display: self)
        let window = try #require(focusWindow(DesktopPickerTests.title), "no window: \(pickerd.logText)")
        #expect(drawn("consent", in: window), "\(tree)\n\(pickerd.logText)")
        #expect(waitFor("push button 'Turn On' [focused]"), "\(tree)\n\(pickerd.logText)")
        try keys("Return")
        #expect(drawn("lists", in: window), "\(tree)")
        return (app, window)
    }

    /// Waits for a window titled `title` and gives it the keyboard focus.
    func focusWindow(_ title: String) -> String? {
        var id: String?
        _ = eventually(timeout: Self.patience) {
            id = window(title)
            guard let id else { return false }
            return (try? run("/usr/bin/xdotool", ["windowfocus", "--sync", id]).status) == 0
        }
        // A new picker's window (X reuses the ids of a client that has gone): no screen of it seen yet.
        if let id { seen[id] = 0 }
        return id
    }

    func keys(_ keys: String...) throws { try run("/usr/bin/xdotool", ["key", "--delay", "60"] + keys) }

    /// The screen the picker in `window` last drew: its count and name (`_PICKERD_SCREEN`, set once
    /// the screen is painted).
    func screen(_ window: String) -> (count: Int, name: String)? {
        guard let r = try? run("/usr/bin/xprop", ["-id", window, "_PICKERD_SCREEN"]), r.status == 0,
              let quoted = r.stdout.split(separator: "\"", omittingEmptySubsequences: false).dropFirst().first else { return nil }
        let parts = quoted.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let count = Int(parts[0]) else { return nil }
        return (count, String(parts[1]))
    }

    /// The screens seen drawn, by window: a key is pressed only once the screen it is meant for is.
    private var seen: [String: Int] = [:]

    /// Waits until the picker in `window` has drawn `name` anew (after the last screen waited for):
    /// what the next key is meant for is on screen.
    func drawn(_ name: String, in window: String, timeout: Double = XDisplay.patience) -> Bool {
        eventually(timeout: timeout) {
            guard let shown = screen(window), shown.count > seen[window, default: 0], shown.name == name else { return false }
            seen[window] = shown.count
            return true
        }
    }
    func type(_ text: String) throws { try run("/usr/bin/xdotool", ["type", "--delay", "30", text]) }

    /// The picker's accessibility tree now (Tools/TestSupport/a11y-tree).
    var tree: String { (try? run("Tools/TestSupport/a11y-tree".absolutePath, ["picker-gtk"]).stdout) ?? "" }

    /// Waits until the tree shows `text`.
    func waitFor(_ text: String, timeout: Double = XDisplay.patience) -> Bool { eventually(timeout: timeout) { tree.contains(text) } }

    /// A screenshot of the whole screen, kept in the test's directory.
    func screenshot(_ name: String) throws -> String {
        let path = directory + "/" + name + ".png"
        let r = try run("/usr/bin/import", ["-window", "root", path])
        #expect(r.status == 0, "import: \(r.stderr)")
        return path
    }

    /// How many pixels of the screenshot are near `colour` ("#c01c28"): the text of a line in that
    /// colour, less its anti-aliased edges.
    func pixels(of colour: String, in path: String) throws -> Int {
        let r = try runCommand(URL(fileURLWithPath: "/usr/bin/convert"), [path, "-fuzz", "12%", "-fill", "black", "+opaque", colour,
                                                                          "-fill", "white", "-opaque", colour, "-format", "%[fx:round(mean*w*h)]", "info:"])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// How many distinct colours the screenshot has inside the rectangle (a drawn picture has
    /// hundreds; text on a flat page a few dozen).
    func colours(in path: String, x: Int, y: Int, width: Int, height: Int) throws -> Int {
        let r = try runCommand(URL(fileURLWithPath: "/usr/bin/convert"), [path, "-crop", "\(width)x\(height)+\(x)+\(y)", "+repage", "-format", "%k", "info:"])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    deinit {
        // SIGKILL: the test runner's threads block SIGTERM, and children inherit the mask. The bus,
        // and what it started, go when its value does.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// journal-demo started from "a launcher": no terminal, its output to files.
final class LaunchedApp {
    let process = Process()
    let output: String

    init(_ pickerd: RunningPickerd, display: XDisplay?, extra: [String] = []) throws {
        output = pickerd.root + "/app-\(UInt32.random(in: 0...UInt32.max)).txt"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.executableURL = BuiltProducts.url("journal-demo")
        process.arguments = ["new-entry", "--output", pickerd.root + "/journal", "--runtime-dir", pickerd.runtime] + extra
        var environment = ProcessInfo.processInfo.environment
        environment.merge(display?.environment ?? [:]) { $1 }
        environment["TZ"] = "America/New_York"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: output)
        try process.run()
    }

    /// Waits for the app to end; its exit status (nil while it runs).
    func finish(timeout: Double = XDisplay.patience) -> Int32? {
        guard eventually(timeout: timeout, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    var said: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    deinit {
        // SIGKILL: the test runner's threads block SIGTERM, and children inherit the mask.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// The desktop picker (`picker-gtk`), started by pickerd for journal-demo run without a terminal,
/// on an Xvfb display, driven with the keyboard alone.
@Suite("The desktop picker, in a window of its own", .serialized)
struct DesktopPickerTests {
    static let title = "Journal Demo — Journaling Suggestions"
    /// The colour of a line in the error style (`.pw-error` in DesktopPicker.css).
    static let errorColour = "#c01c28"

    /// pickerd on `display` with the demo library and journal-demo registered; no other picker.
    func world(_ display: XDisplay?, environment: [String: String]? = nil) throws -> RunningPickerd {
        let pickerd = try RunningPickerd(seed: true, environment: (environment ?? display?.environment ?? [:]).merging(["TZ": "America/New_York"]) { $1 })
        try registerJournalDemo(pickerd)
        return pickerd
    }

    /// The review's items as the tree gives them: (kept, summary without its glyph).
    func items(_ tree: String) -> [(kept: Bool, summary: String)] {
        tree.split(separator: "\n").compactMap { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("check box '") else { return nil }
            let name = text.dropFirst("check box '".count).prefix { $0 != "'" }
            // "▣ photo IMG_0014.png": drop the glyph.
            return (text.contains("[checked]"), String(name.drop { $0 != " " }.dropFirst()))
        }
    }

    /// No picker process is left, and pickerd holds no presentation.
    func clean(_ pickerd: RunningPickerd, _ display: XDisplay) -> Bool {
        eventually(timeout: XDisplay.patience) {
            display.window(Self.title) == nil
                // This pickerd's pickers only: other suites' desktop pickers run at the same time.
                && (try? runCommand(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-x", "-P", "\(pickerd.pid ?? 0)", "picker-gtk"]).status) == 1
                && ((try? pickerd.ctl(["status"]).stdout) ?? "").contains("sessions: 0 active, 0 picker agents")
        }
    }

    @Test("consent, a list with pictures, two items left out and the title edited, added: only the kept items reach the app")
    func fullFlow() throws {
        let display = try XDisplay()
        let pickerd = try world(display)
        let app = try LaunchedApp(pickerd, display: display)
        let window = try #require(display.focusWindow(Self.title), "no window: \(pickerd.logText)")

        // The consent sheet.
        #expect(display.drawn("consent", in: window), "\(display.tree)\n\(pickerd.logText)")
        #expect(display.waitFor("push button 'Turn On' [focused]"), "\(display.tree)\n\(pickerd.logText)")
        let sheet = display.tree
        for control in ["push button 'Customize'", "push button 'About'", "push button 'Not Now'", "label 'Journaling Suggestions'"] {
            #expect(sheet.contains(control), "\(control) in \(sheet)")
        }
        #expect(sheet.contains("push button 'Turn On' [focused]"), "Turn On has the focus: Enter turns it on\n\(sheet)")
        let consent = try display.screenshot("1-consent")
        #expect(try display.colours(in: consent, x: 0, y: 0, width: 940, height: 660) > 8, "the sheet is drawn")
        try display.keys("Return")

        // The lists, each suggestion with its picture.
        #expect(display.drawn("lists", in: window), "\(display.tree)")
        #expect(display.waitFor("Recommended ("), "\(display.tree)")
        #expect(display.waitFor("image 'picture'"), "thumbnails arrived: \(display.tree)")
        #expect(eventually(timeout: XDisplay.patience) { display.tree.components(separatedBy: "image 'picture'").count - 1 >= 3 }, "\(display.tree)")
        let tree = display.tree
        #expect(tree.contains("list 'Recommended suggestions'"), "\(tree)")
        #expect(tree.contains("Journal Demo gets only what you choose to add."), "\(tree)")
        #expect(tree.contains("push button 'Learn More'"), "\(tree)")
        #expect(tree.contains("push button 'Dismiss'"), "\(tree)")
        let lists = try display.screenshot("2-lists")
        // The thumbnails' column holds real pictures: far more colours than text on a flat page.
        #expect(try display.colours(in: lists, x: 30, y: 170, width: 90, height: 420) > 150, "pictures in the list")

        // The review: leave two items out, edit the title.
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        #expect(display.waitFor("check box '"), "\(display.tree)")
        let shown = items(display.tree)
        #expect(shown.count >= 4, "\(display.tree)")
        #expect(shown.allSatisfy { $0.kept }, "\(display.tree)")
        try display.keys("Down", "space", "Down", "Down", "space")
        #expect(eventually(timeout: XDisplay.patience) { items(display.tree).filter { !$0.kept }.count == 2 }, "\(display.tree)")
        #expect(display.waitFor("keeping \(shown.count - 2) of \(shown.count)"))
        try display.keys("alt+e")
        #expect(display.drawn("review-title", in: window), "\(display.tree)")
        #expect(display.waitFor("text 'Title'") || display.waitFor("entry 'Title'"), "\(display.tree)")
        try display.keys("ctrl+a")
        try display.type("A weekend upstate")
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        #expect(display.waitFor("label 'A weekend upstate'"), "\(display.tree)")
        let review = try display.screenshot("3-review")
        #expect(try display.colours(in: review, x: 20, y: 140, width: 420, height: 320) > 150, "the carousel shows a picture")
        let kept = items(display.tree).filter(\.kept).map(\.summary)
        #expect(kept.count == shown.count - 2)
        try display.keys("alt+a")

        // The outcome: the entry and the history hold exactly the kept items.
        #expect(app.finish() == 0, "\(app.said)\n\(pickerd.logText)")
        #expect(clean(pickerd, display), "the window is gone and pickerd clean: \(pickerd.logText)")
        let history = try pickerd.ctl(["history"]).stdout
        #expect(history.contains("\"A weekend upstate\", \(kept.count) items"), "\(history)")
        let released = history.split(separator: "\n").dropFirst().map { String($0.split(separator: ":", maxSplits: 1)[1].dropFirst()) }
        #expect(released == kept, "released exactly the kept items: \(released) vs \(kept)")
        let files = try FileManager.default.contentsOfDirectory(atPath: pickerd.root + "/journal").filter { $0.hasSuffix(".md") }
        let entry = try String(contentsOfFile: pickerd.root + "/journal/" + files[0], encoding: .utf8)
        #expect(entry.hasPrefix("# A weekend upstate\n"), "\(entry)")
        for left in shown.filter({ !kept.contains($0.summary) }) {
            let file = left.summary.split(separator: " ").last.map(String.init) ?? left.summary
            #expect(!entry.contains(file), "\(file) was left out: \(entry)")
        }
        pickerd.stop()
    }

    @Test("Escape cancels and closing the window cancels: the app gets nothing, the window goes, pickerd is clean")
    func cancelAndClose() throws {
        let display = try XDisplay()
        let pickerd = try world(display)
        let (first, _) = try display.listsAfterConsent(pickerd)
        #expect(display.waitFor("Recommended ("), "\(display.tree)")
        try display.keys("Escape")
        #expect(first.finish() == 3, "cancelled: \(first.said)")
        #expect(first.said.contains("cancelled: nothing was added"))
        #expect(clean(pickerd, display), "\(pickerd.logText)")

        // Consent is remembered: the lists come first; the window manager's close ends it the same way.
        let second = try LaunchedApp(pickerd, display: display)
        let window = try #require(display.focusWindow(Self.title), "\(pickerd.logText)")
        #expect(display.drawn("lists", in: window), "\(display.tree)")
        #expect(display.waitFor("Recommended ("), "\(display.tree)")
        let r = try display.run("Tools/TestSupport/x11-close-window".absolutePath, [window])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(second.finish() == 3, "cancelled: \(second.said)")
        #expect(clean(pickerd, display), "\(pickerd.logText)")
        #expect(try pickerd.ctl(["history"]).stdout.contains("nothing has been released yet"))
        pickerd.stop()
    }

    @Test("over the app's window: the picker is transient for the X11 window the app names")
    func transientForTheApp() throws {
        let display = try XDisplay()
        let pickerd = try world(display)
        // The app's window: xmessage, started again if it ends before its window is there (it has,
        // once in a while, on a busy machine), its complaints kept for the message below.
        let complaints = display.directory + "/xmessage.err"
        _ = FileManager.default.createFile(atPath: complaints, contents: nil)
        func startParent() throws -> Process {
            let parent = Process()
            parent.executableURL = URL(fileURLWithPath: "/usr/bin/xmessage")
            parent.arguments = ["-title", "My Journal", "the app's own window"]
            parent.environment = display.environment
            parent.standardError = FileHandle(forWritingAtPath: complaints)
            try parent.run()
            return parent
        }
        var parent = try startParent()
        defer { kill(parent.processIdentifier, SIGKILL) }  // SIGTERM is blocked in what the test runner starts
        let shown = eventually(timeout: XDisplay.patience) {
            if !parent.isRunning, let again = try? startParent() { parent = again }
            return display.window("My Journal") != nil
        }
        let parentID = try #require(shown ? display.window("My Journal") : nil,
                                    "xmessage's window: \((try? String(contentsOfFile: complaints, encoding: .utf8)) ?? "")")
        let handle = "x11:" + String(UInt64(parentID)!, radix: 16)
        let app = try LaunchedApp(pickerd, display: display, extra: ["--parent-window", handle])
        let picker = try #require(display.focusWindow(Self.title), "\(pickerd.logText)")
        let hint = try display.run("/usr/bin/xprop", ["-id", picker, "WM_TRANSIENT_FOR"])
        #expect(hint.stdout.contains("window id # 0x" + String(UInt64(parentID)!, radix: 16)), "\(hint.stdout)\n\(pickerd.logText)")
        #expect(display.drawn("consent", in: picker), "\(display.tree)")
        try display.keys("Escape")  // Not Now
        #expect(app.finish() == 4, "\(app.said)")
        #expect(clean(pickerd, display))

        // A handle that is not one is refused before anything is shown.
        let wrong = try LaunchedApp(pickerd, display: display, extra: ["--parent-window", "x11:not-a-window"])
        #expect(wrong.finish() == 1, "\(wrong.said)")
        #expect(wrong.said.contains("parent_window is"), "\(wrong.said)")
        pickerd.stop()
    }

    @Test("a display that does not answer: the presentation fails when the picker ends, with the reason")
    func noDisplay() throws {
        let pickerd = try world(nil, environment: ["DISPLAY": ":8765"])
        let app = try LaunchedApp(pickerd, display: nil)
        #expect(app.finish() == 6, "\(app.said)\n\(pickerd.logText)")
        // Not "did not start" (the start timeout): the picker's end was heard, with its status.
        #expect(app.said.contains("the desktop picker ended before it showed (exit status 4)"), "\(app.said)")
        #expect(pickerd.logText.contains("cannot open a display"))
        pickerd.stop()
    }
}
