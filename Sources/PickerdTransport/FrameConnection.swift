public import PickerdWire
public import SystemPackage
import CPickerdShims
import Glibc
import Synchronization

/// A frame received from a peer: the envelope and the descriptors attached to it.
public struct ReceivedFrame: Sendable {
    /// The message.
    public var envelope: Envelope
    /// The descriptors that came with the frame, in order (a `Media`'s `fdIndex` indexes this).
    /// Each is closed when its last reference goes, unless taken.
    public var descriptors: [OwnedFileDescriptor]
    /// The body exactly as it arrived (the encoded envelope), for audits.
    public var body: [UInt8] = []
}

/// One end of a connected Unix stream socket that speaks pickerd frames, with descriptors passed
/// through `SCM_RIGHTS`.
///
/// Sends and receives are each serialised by their own lock, so one thread may send while another
/// receives. All calls block.
///
/// Receiving reads ahead (one `recvmsg` usually brings a whole frame, or several), so a frame can be
/// waiting in this object while the socket itself has nothing to read: a `poll(2)` loop calls
/// ``receive()`` again while ``hasBufferedFrame`` is true.
///
/// Descriptors are matched to frames by the count each header declares, in order. That is exact
/// because a sender attaches a frame's descriptors to the frame's first byte, and the kernel hands
/// descriptors over with the read that takes that byte and ends that read there: descriptors
/// waiting here always belong to frames already (partly) read. Descriptors no frame declares are
/// refused, closed, and reported as `descriptorMismatch`.
public final class FrameConnection: Sendable {
    private let socket: OwnedFileDescriptor
    /// The limits this end enforces on what it receives, and on what it sends.
    public let limits: FrameLimits
    private let sendLock = Mutex(())
    private let receiveState: Mutex<ReceiveState>
    /// How long a send may wait for room in the socket buffer, in milliseconds; -1 waits for ever
    /// (a blocking socket), which is the default.
    private let sendTimeoutMilliseconds = Atomic<Int32>(-1)

    /// The receive side's state, reused by every ``receive()`` so the hot path allocates nothing
    /// but the frame body: the decoder, one read buffer and one control-message buffer.
    private struct ReceiveState: ~Copyable {
        var decoder: FrameDecoder
        /// Frames read whole but not yet handed out, oldest first.
        var frames: [FrameDecoder.RawFrame] = []
        /// Descriptors received but not yet handed out with their frame, oldest first.
        var descriptors: [OwnedFileDescriptor] = []
        let buffer: UnsafeMutableRawBufferPointer
        let control: UnsafeMutableRawBufferPointer

        init(limits: FrameLimits) {
            decoder = FrameDecoder(limits: limits)
            buffer = .allocate(byteCount: 64 * 1024, alignment: 16)
            control = .allocate(byteCount: pickerd_cmsg_space(MemoryLayout<Int32>.stride * max(limits.maxDescriptors, 1)),
                                alignment: MemoryLayout<cmsghdr>.alignment)
        }

        deinit {
            buffer.deallocate()
            control.deallocate()
        }
    }

    init(socket: OwnedFileDescriptor, limits: FrameLimits) {
        self.socket = socket
        self.limits = limits
        self.receiveState = Mutex(ReceiveState(limits: limits))
    }

    /// Wraps a connected `AF_UNIX` stream socket this connection will own.
    /// - Parameters:
    ///   - descriptor: the socket.
    ///   - limits: the frame limits to enforce.
    public convenience init(adopting descriptor: FileDescriptor, limits: FrameLimits = .standard) {
        self.init(socket: OwnedFileDescriptor(taking: descriptor), limits: limits)
    }

    /// The socket, for `poll(2)`; `nil` once closed.
    public var descriptor: FileDescriptor? { socket.descriptor }

    /// Makes the socket non-blocking (`O_NONBLOCK`), for a server's event loop: ``receiveAvailable()``
    /// then returns what has arrived without waiting, and a send waits for room in the socket's
    /// buffer at most `sendTimeout` (a peer that does not read its replies is cut off, not waited for).
    /// - Parameter sendTimeout: the longest a send waits for the peer to read.
    /// - Throws: `TransportError` `.systemCall`.
    public func makeNonBlocking(sendTimeout: Duration) throws(TransportError) {
        let fd = try fd()
        _ = try syscall("fcntl(O_NONBLOCK)") { pickerd_set_nonblocking(fd) }
        sendTimeoutMilliseconds.store(Int32(clamping: Int64((sendTimeout / .milliseconds(1)).rounded(.up))), ordering: .releasing)
    }

    private func fd() throws(TransportError) -> Int32 {
        guard let fd = socket.descriptor?.rawValue else { throw TransportError(.closed, "the connection is closed") }
        return fd
    }

    // MARK: Sending

    /// Sends one envelope as a frame, with descriptors attached (`sendmsg(2)`, `SCM_RIGHTS`).
    ///
    /// The descriptors stay the caller's: the kernel gives the peer its own copies.
    /// - Parameters:
    ///   - envelope: the message.
    ///   - descriptors: descriptors to pass; a `Media`'s `fdIndex` refers to this order.
    /// - Throws: `TransportError` `.wire` (too large, too many descriptors) or `.systemCall` (EPIPE
    ///   when the peer is gone).
    public func send(_ envelope: Envelope, descriptors: [FileDescriptor] = []) throws(TransportError) {
        let bytes: [UInt8]
        do {
            bytes = try Framing.encode(envelope, descriptorCount: descriptors.count, limits: limits)
        } catch {
            throw TransportError(error)
        }
        try sendRawBytes(bytes, descriptors: descriptors)
    }

    /// Sends any message of the schema as a frame (not an envelope), with descriptors attached: for
    /// channels that are not one of pickerd's sockets (pickerd and its file readers).
    /// - Parameters:
    ///   - message: the message.
    ///   - descriptors: descriptors to pass.
    /// - Throws: as ``send(_:descriptors:)``.
    public func sendMessage<M: ProtobufMessage>(_ message: M, descriptors: [FileDescriptor] = []) throws(TransportError) {
        let body = message.serializedBytes()
        guard body.count <= limits.maxBodyBytes else {
            throw TransportError(WireError(.oversized, "message of \(body.count) bytes is over the \(limits.maxBodyBytes)-byte limit"))
        }
        guard descriptors.count <= limits.maxDescriptors else {
            throw TransportError(WireError(.tooManyDescriptors, "\(descriptors.count) descriptors; the limit is \(limits.maxDescriptors)"))
        }
        try sendRawBytes(FrameHeader(bodyLength: UInt32(body.count), descriptorCount: UInt16(descriptors.count)).bytes + body,
                         descriptors: descriptors)
    }

    /// Receives the next frame as a message of the given type (sent with ``sendMessage(_:descriptors:)``).
    /// - Parameter type: the message type the channel carries.
    /// - Returns: the message and its descriptors, or `nil` when the peer closed cleanly between frames.
    /// - Throws: as ``receive()``.
    public func receiveMessage<M: ProtobufMessage>(_ type: M.Type) throws(TransportError) -> (message: M, descriptors: [OwnedFileDescriptor])? {
        switch try receive(waiting: true, decode: { (body) throws(WireError) -> M in try M(serializedBytes: body) }) {
        case .frame(let (message, descriptors, _)): (message, descriptors)
        case .closed, .wouldBlock: nil
        }
    }

    /// Sends bytes as they are, with descriptors attached to the first byte. For frames already
    /// encoded, and for conformance tests that must send malformed frames.
    /// - Parameters:
    ///   - bytes: the bytes to write, all of them.
    ///   - descriptors: descriptors to attach to the first byte.
    /// - Throws: `TransportError` `.systemCall`.
    public func sendRawBytes(_ bytes: [UInt8], descriptors: [FileDescriptor] = []) throws(TransportError) {
        let fd = try fd()
        try sendLock.withLock { (_) throws(TransportError) in
            let result = bytes.withUnsafeBytes { buffer in
                Result { () throws(TransportError) in
                    var offset = 0
                    var pending = descriptors.map(\.rawValue)
                    repeat {
                        offset += try sendChunk(fd: fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]), descriptors: pending)
                        pending = []
                    } while offset < buffer.count
                }
            }
            try result.get()
        }
    }

    private func sendChunk(fd: Int32, _ chunk: UnsafeRawBufferPointer, descriptors: [Int32]) throws(TransportError) -> Int {
        var iov = iovec(iov_base: UnsafeMutableRawPointer(mutating: chunk.baseAddress), iov_len: chunk.count)
        var message = msghdr()
        message.msg_iovlen = 1
        let controlLength = descriptors.isEmpty ? 0 : pickerd_cmsg_space(MemoryLayout<Int32>.stride * descriptors.count)
        let control = UnsafeMutableRawBufferPointer.allocate(byteCount: max(controlLength, 1), alignment: MemoryLayout<cmsghdr>.alignment)
        defer { control.deallocate() }
        if !descriptors.isEmpty {
            control.initializeMemory(as: UInt8.self, repeating: 0)
            message.msg_control = control.baseAddress
            message.msg_controllen = controlLength
            let header = pickerd_cmsg_firsthdr(&message)!
            header.pointee.cmsg_level = SOL_SOCKET
            header.pointee.cmsg_type = pickerd_scm_rights
            header.pointee.cmsg_len = pickerd_cmsg_len(MemoryLayout<Int32>.stride * descriptors.count)
            let data = UnsafeMutableRawPointer(pickerd_cmsg_data(header)!)
            for (i, descriptor) in descriptors.enumerated() {
                data.storeBytes(of: descriptor, toByteOffset: i * MemoryLayout<Int32>.stride, as: Int32.self)
            }
        }
        return try withUnsafeMutablePointer(to: &iov) { (iovPointer) throws(TransportError) -> Int in
            message.msg_iov = iovPointer
            while true {
                var full = false
                let sent = try syscall("sendmsg") { () -> Int in
                    let sent = Glibc.sendmsg(fd, &message, pickerd_msg_nosignal)
                    full = sent == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)
                    return full ? 0 : sent
                }
                if !full { return sent }
                try waitForRoom(fd)
            }
        }
    }

    /// A non-blocking socket's buffer is full: waits until the peer has read some (`poll(2)`,
    /// `POLLOUT`), at most the send timeout.
    private func waitForRoom(_ fd: Int32) throws(TransportError) {
        let timeout = sendTimeoutMilliseconds.load(ordering: .acquiring)
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready = try syscall("poll") { Glibc.poll(&entry, 1, timeout) }
        guard ready > 0 else {
            throw TransportError(.systemCall, "the peer did not read for \(timeout) ms; the send was given up",
                                 errno: .timedOut)
        }
    }

    // MARK: Receiving

    /// Receives the next frame (`recvmsg(2)` with `MSG_CMSG_CLOEXEC`).
    /// - Returns: the frame, or `nil` when the peer closed the connection cleanly between frames.
    /// - Throws: `TransportError` `.wire` (malformed, oversized, undecodable, unknown message kind,
    ///   descriptor count mismatch), `.connectionClosed` (closed mid-frame), `.controlDataTruncated`,
    ///   `.systemCall`. After a throw the connection is out of step and should be closed.
    public func receive() throws(TransportError) -> ReceivedFrame? {
        switch try receive(waiting: true) {
        case .frame(let frame): frame
        case .closed, .wouldBlock: nil
        }
    }

    /// What ``receiveAvailable()`` found.
    public enum Received: Sendable {
        /// A whole frame.
        case frame(ReceivedFrame)
        /// Nothing more for now: no whole frame has arrived yet (part of one may have).
        case wouldBlock
        /// The peer closed the connection cleanly between frames.
        case closed
    }

    /// The next frame if one has arrived whole, without waiting (for a socket made non-blocking with
    /// ``makeNonBlocking(sendTimeout:)``). Bytes of a frame still arriving are kept for the next call.
    /// - Returns: a frame, `.wouldBlock`, or `.closed`.
    /// - Throws: as ``receive()``; after a throw the connection is out of step and should be closed.
    public func receiveAvailable() throws(TransportError) -> Received {
        try receive(waiting: false)
    }

    /// Whether part of a frame has arrived and the rest has not (for a server's frame deadline).
    public var isInsideFrame: Bool {
        receiveState.withLock { $0.decoder.isInsideFrame }
    }

    private func receive(waiting: Bool) throws(TransportError) -> Received {
        switch try receive(waiting: waiting, decode: Framing.decodeEnvelope) {
        case .frame(let (envelope, descriptors, body)): .frame(ReceivedFrame(envelope: envelope, descriptors: descriptors, body: body))
        case .wouldBlock: .wouldBlock
        case .closed: .closed
        }
    }

    private enum Decoded<Message: Sendable>: Sendable {
        case frame((Message, [OwnedFileDescriptor], [UInt8]))
        case wouldBlock
        case closed
    }

    private func receive<Message: Sendable>(waiting: Bool, decode: @Sendable ([UInt8]) throws(WireError) -> Message) throws(TransportError) -> Decoded<Message> {
        let fd = try fd()
        return try receiveState.withLock { (state) throws(TransportError) -> Decoded<Message> in
            while true {
                if !state.frames.isEmpty {
                    switch Result(catching: { () throws(TransportError) in try nextFrame(&state, decode: decode) }) {
                    case .success(let frame): return .frame(frame)
                    case .failure(let error):
                        // Out of step: drop everything buffered, closing its descriptors.
                        state.frames = []
                        state.descriptors = []
                        throw error
                    }
                }
                let read = Result { () throws(TransportError) in
                    try receiveChunk(fd: fd, into: state.buffer, control: state.control, descriptors: &state.descriptors)
                }
                if case .failure(let error) = read {
                    if !waiting && error.errno == .resourceTemporarilyUnavailable { return .wouldBlock }
                    state.descriptors = []
                }
                let count = try read.get()
                if count == 0 {
                    guard state.decoder.isInsideFrame || !state.descriptors.isEmpty else { return .closed }
                    state.descriptors = []
                    throw TransportError(.connectionClosed, "the peer closed the connection in the middle of a frame",
                                         wireError: WireError(.truncated, "stream ended inside a frame"))
                }
                let received = UnsafeRawBufferPointer(rebasing: state.buffer[..<count])
                let fed = Result { () throws(WireError) in try state.decoder.feed(received) }
                switch fed {
                case .success(let frames): state.frames += frames
                case .failure(let error):
                    state.descriptors = []
                    throw TransportError(error)
                }
            }
        }
    }

    /// Whether a frame already read from the socket waits to be returned by ``receive()``.
    public var hasBufferedFrame: Bool {
        receiveState.withLock { !$0.frames.isEmpty }
    }

    /// Hands out the oldest buffered frame with the descriptors its header declares.
    private func nextFrame<Message: Sendable>(_ state: inout ReceiveState, decode: @Sendable ([UInt8]) throws(WireError) -> Message)
        throws(TransportError) -> (Message, [OwnedFileDescriptor], [UInt8]) {
        let frame = state.frames.removeFirst()
        let declared = Int(frame.header.descriptorCount)
        guard state.descriptors.count >= declared else {
            throw TransportError(WireError(.descriptorMismatch,
                "frame declares \(declared) descriptors but \(state.descriptors.count) arrived"))
        }
        let descriptors = Array(state.descriptors.prefix(declared))
        state.descriptors.removeFirst(declared)
        // Descriptors still waiting can only belong to a frame not yet complete; with none, they
        // belong to no frame at all.
        if !state.descriptors.isEmpty && state.frames.isEmpty && !state.decoder.isInsideFrame {
            throw TransportError(WireError(.descriptorMismatch,
                "\(state.descriptors.count) descriptors arrived that no frame declares"))
        }
        let decoded = Result { () throws(WireError) in try decode(frame.body) }
        return (try decoded.mapError(TransportError.init).get(), descriptors, frame.body)
    }

    private func receiveChunk(
        fd: Int32, into chunk: UnsafeMutableRawBufferPointer, control: UnsafeMutableRawBufferPointer,
        descriptors: inout [OwnedFileDescriptor]
    ) throws(TransportError) -> Int {
        var iov = iovec(iov_base: chunk.baseAddress, iov_len: chunk.count)
        var message = msghdr()
        message.msg_iovlen = 1
        message.msg_control = control.baseAddress
        message.msg_controllen = control.count
        let count = try withUnsafeMutablePointer(to: &iov) { (iovPointer) throws(TransportError) -> Int in
            message.msg_iov = iovPointer
            return try syscall("recvmsg") { Glibc.recvmsg(fd, &message, pickerd_msg_cmsg_cloexec) }
        }
        // Take ownership of every descriptor first, so each is closed exactly once whatever happens next.
        var header = message.msg_controllen > 0 ? pickerd_cmsg_firsthdr(&message) : nil
        while let h = header {
            if h.pointee.cmsg_level == SOL_SOCKET && h.pointee.cmsg_type == pickerd_scm_rights {
                let bytes = Int(h.pointee.cmsg_len) - pickerd_cmsg_len(0)
                let data = UnsafeRawPointer(pickerd_cmsg_data(h)!)
                for i in 0..<(bytes / MemoryLayout<Int32>.stride) {
                    let received = data.loadUnaligned(fromByteOffset: i * MemoryLayout<Int32>.stride, as: Int32.self)
                    descriptors.append(OwnedFileDescriptor(taking: FileDescriptor(rawValue: received)))
                }
            }
            header = pickerd_cmsg_nxthdr(&message, h)
        }
        if message.msg_flags & pickerd_msg_ctrunc != 0 {
            throw TransportError(.controlDataTruncated,
                "the peer attached more descriptors than the \(limits.maxDescriptors) allowed; the extra ones were dropped")
        }
        // At most one partly read frame's descriptors wait from before this read, and one read
        // brings at most one sender's call's worth: more than twice the limit is a flood.
        if descriptors.count > 2 * limits.maxDescriptors {
            throw TransportError(WireError(.tooManyDescriptors,
                "\(descriptors.count) descriptors arrived unclaimed; the limit is \(limits.maxDescriptors) per frame"))
        }
        return count
    }

    // MARK: Identity and teardown

    /// The peer's identity as the kernel recorded it when it connected (`SO_PEERCRED`), and a pidfd
    /// for the peer process (`SO_PEERPIDFD`, or `pidfd_open` on kernels before 6.5).
    /// - Returns: the credentials.
    /// - Throws: `TransportError` `.systemCall`.
    public func peerCredentials() throws(TransportError) -> PeerCredentials {
        let fd = try fd()
        var cred = pickerd_ucred()
        try syscall("getsockopt(SO_PEERCRED)") { pickerd_peer_credentials(fd, &cred) }
        var pidfd: OwnedFileDescriptor?
        var source = PeerCredentials.PidfdSource.socket
        do {
            let raw = try syscall("getsockopt(SO_PEERPIDFD)") { pickerd_peer_pidfd(fd) }
            pidfd = OwnedFileDescriptor(taking: FileDescriptor(rawValue: raw))
        } catch where error.errno == .protocolNotAvailable {
            // Kernel before 6.5: open one by pid. A pid reused between connect and here would be
            // caught by comparing the pidfd's process with SO_PEERCRED again; callers re-check.
            if cred.pid > 0, let raw = try? syscall("pidfd_open", { pickerd_pidfd_open(cred.pid) }) {
                pidfd = OwnedFileDescriptor(taking: FileDescriptor(rawValue: raw))
                source = .pidOpen
            }
        }
        return PeerCredentials(uid: cred.uid, gid: cred.gid, pid: cred.pid, pidfd: pidfd,
                               pidfdSource: pidfd == nil ? nil : source)
    }

    /// Shuts the socket down both ways (`shutdown(2)`): a blocked ``receive()`` returns, the peer sees
    /// the end of the stream. The descriptor stays open until ``close()``.
    public func shutdown() {
        if let fd = socket.descriptor?.rawValue { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Closes the socket. A second call does nothing.
    /// - Throws: `TransportError` `.systemCall`.
    public func close() throws(TransportError) { try socket.close() }
}

/// Who is at the other end of a Unix socket, from the kernel, never from a message.
public struct PeerCredentials: Sendable {
    /// Where ``pidfd`` came from.
    public enum PidfdSource: Sendable, Hashable {
        /// `SO_PEERPIDFD`: the kernel's own reference to the connecting process.
        case socket
        /// `pidfd_open(pid)` after the fact, on kernels before 6.5.
        case pidOpen
    }

    /// The peer's user id.
    public var uid: UInt32
    /// The peer's group id.
    public var gid: UInt32
    /// The peer's process id at connect time.
    public var pid: Int32
    /// A pidfd for the peer process, if one could be had.
    public var pidfd: OwnedFileDescriptor?
    /// Where ``pidfd`` came from.
    public var pidfdSource: PidfdSource?
}
