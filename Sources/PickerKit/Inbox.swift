import Foundation
public import PickerdTransport
import Synchronization

/// What pickerd sent a picker, collected by a thread of its own so the picker's screen never waits
/// on the socket.
public final class Inbox: Sendable {
    private let frames = Mutex<[ReceivedFrame]>([])
    private let closed = Atomic<Bool>(false)

    /// Starts receiving on `connection`.
    /// - Parameters:
    ///   - connection: the agent connection to pickerd.
    ///   - arrived: called on the receiving thread after each frame is queued, and once more when
    ///     pickerd closes the connection (a window picker wakes its main loop with it).
    public init(_ connection: FrameConnection, arrived: (@Sendable () -> Void)? = nil) {
        let thread = Thread { [self] in
            while let frame = try? connection.receive() {
                frames.withLock { $0.append(frame) }
                arrived?()
            }
            closed.store(true, ordering: .releasing)
            arrived?()
        }
        thread.name = "picker-inbox"
        thread.start()
    }

    /// Everything received since the last call.
    public func take() -> [ReceivedFrame] { frames.withLock { frames in defer { frames = [] }; return frames } }

    /// Whether pickerd closed the connection.
    public var isClosed: Bool { closed.load(ordering: .acquiring) }
}
