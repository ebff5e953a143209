// picker-gtk: pickerd's desktop picker. pickerd starts one for each presentation that brings no
// terminal when the person's session has a display; it registers as a desktop agent, takes that one
// presentation, and shows it in a GTK 4 window of its own: the question whether to allow an app the
// person has not allowed yet, the consent sheet, the privacy banner, Recommended and Recent with a
// picture for each suggestion, and the review with its carousel and list. The app's process only
// waits for the outcome; what is shown here comes from pickerd to this process alone, media as
// sealed descriptors, and nothing is written to disk.

import ArgumentParser
import CPickerWindow
import Foundation
import PickerKit
import PickerdTransport
import PickerdWire

@main
struct PickerGTK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picker-gtk",
        abstract: "pickerd's desktop picker: a window for one presentation.",
        discussion: """
            pickerd starts picker-gtk for a presentation that brings no terminal when the person's session has a display \
            ($WAYLAND_DISPLAY or $DISPLAY in pickerd's environment). It registers with pickerd as a desktop agent, shows \
            that presentation in a window titled with the app's name, and exits when the person adds, cancels or closes it.

            Keys: Tab moves between controls, Enter or Space activates, Escape cancels (or goes back from a sub-page). \
            In the review, ↑/↓ move through the items and Space keeps or leaves out the one selected; Alt+A adds.

            Exit status: 0 when the presentation ended, 1 when pickerd closed the connection first, 3 when pickerd \
            cannot be reached or refused the agent, 4 when there is no display.
            """)

    @Option(help: "pickerd's runtime directory (default: $PICKERD_RUNTIME_DIR, else $XDG_RUNTIME_DIR/pickerd).")
    var runtimeDir: String?

    func run() throws {
        // The start's phases, for Tools/bench-picker: main reached, the display open, registered.
        let trace = PickerTrace(picker: "picker-gtk")
        trace.note("started")
        // The display first: a picker that cannot show itself must not take a presentation.
        guard pw_init(DesktopPicker.event) == 0 else {
            FileHandle.standardError.write(Data("picker-gtk: cannot open a display (neither $WAYLAND_DISPLAY nor $DISPLAY names one that answers)\n".utf8))
            throw ExitCode(4)
        }
        trace.note("display")
        let client: ProtocolClient
        do {
            let paths = try PickerdPaths.resolve(runtimeDirectory: runtimeDir ?? ProcessInfo.processInfo.environment["PICKERD_RUNTIME_DIR"])
            client = try ProtocolClient(path: paths.agentSocket, role: .agent, software: "picker-gtk")
            _ = try client.request(.agentRegister(AgentRegister(name: "desktop", capabilities: [.desktop])))
            trace.note("registered")
        } catch let error as ProtocolClient.RemoteError {
            FileHandle.standardError.write(Data("picker-gtk: \(error.message)\n".utf8))
            throw ExitCode(3)
        } catch {
            FileHandle.standardError.write(Data("picker-gtk: cannot reach pickerd: \(error)\n".utf8))
            throw ExitCode(3)
        }
        let code = MainActor.assumeIsolated {
            let picker = DesktopPicker(client: client)
            DesktopPicker.current = picker
            pw_run()
            return picker.exitCode
        }
        throw ExitCode(code)
    }
}
