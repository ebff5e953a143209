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
