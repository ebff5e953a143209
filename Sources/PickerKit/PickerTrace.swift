import Foundation
import Glibc

/// When a picker showed what, for `Tools/bench-picker`: with `$PICKERD_PICKER_TRACE` naming a file
/// (pickerd passes its environment on to the pickers it starts), each screen drawn and each key
/// received is appended to it as one line, `<CLOCK_REALTIME seconds> <picker> <event> <detail>`.
/// Screen names and key codes only: never a title or anything else from the library. Without the
/// variable nothing is written.
public struct PickerTrace: Sendable {
    private let descriptor: Int32?
    private let picker: String

    /// The trace of `picker` ("picker-gtk", "picker-agent"), from the environment.
    public init(picker: String) {
        self.picker = picker
        if let path = ProcessInfo.processInfo.environment["PICKERD_PICKER_TRACE"], !path.isEmpty {
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            descriptor = fd >= 0 ? fd : nil
        } else {
            descriptor = nil
        }
    }

    /// Whether lines are written.
    public var isOn: Bool { descriptor != nil }

    /// Appends `event` and `detail` with the time now (one `write`, so lines of several pickers do
    /// not interleave).
    public func note(_ event: String, _ detail: String = "") {
        guard let descriptor else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let fraction = String(now.tv_nsec)
        let line = "\(now.tv_sec).\(String(repeating: "0", count: 9 - fraction.count))\(fraction) \(picker) \(event) \(detail)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    }
}
