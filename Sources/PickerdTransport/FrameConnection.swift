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
}

/// One end of a connected Unix stream socket that speaks pickerd frames, with descriptors passed
/// through `SCM_RIGHTS`.
///
/// Sends and receives are each serialised by their own lock, so one thread may send while another
/// receives. All calls block.
///
/// Receiving reads exactly up to each frame boundary, so the descriptors the kernel hands over with a
/// read belong to the frame being read: a sender attaches a frame's descriptors to its first byte.
/// A frame whose descriptors do not match its header's count is refused and those descriptors closed.
public final class FrameConnection: Sendable {
    private let socket: OwnedFileDescriptor
    /// The limits this end enforces on what it receives, and on what it sends.
    public let limits: FrameLimits
    private let sendLock = Mutex(())
    private let receiveState: Mutex<FrameDecoder>

    init(socket: OwnedFileDescriptor, limits: FrameLimits) {
        self.socket = socket
        self.limits = limits
        self.receiveState = Mutex(FrameDecoder(limits: limits))
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

    /// Sends bytes as they are, with descriptors attached to the first byte. For frames already
    /// encoded, and for conformance tests that must send malformed frames.
    /// - Parameters:
    ///   - bytes: the bytes to write, all of them.
    ///   - descriptors: descriptors to attach to the first byte.
    /// - Throws: `TransportError` `.systemCall`.
    public func sendRawBytes(_ bytes: [UInt8], descriptors: [FileDescriptor] = []) throws(TransportError) {
        let fd = try fd()
        try sendLock.withLock { (_) throws(TransportError) in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            defer { buffer.deallocate() }
            buffer.copyBytes(from: bytes)
            var offset = 0
            var pending = descriptors.map(\.rawValue)
            repeat {
                offset += try sendChunk(fd: fd, UnsafeRawBufferPointer(rebasing: buffer[offset..<bytes.count]), descriptors: pending)
                pending = []
            } while offset < bytes.count
        }
    }

    private func sendChunk(fd: Int32, _ chunk: UnsafeRawBufferPointer, descriptors: [Int32]) throws(TransportError) -> Int {
        let iov = UnsafeMutablePointer<iovec>.allocate(capacity: 1)
        defer { iov.deallocate() }
        iov.initialize(to: iovec(iov_base: UnsafeMutableRawPointer(mutating: chunk.baseAddress), iov_len: chunk.count))
        var message = msghdr()
        message.msg_iov = iov
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
        return try syscall("sendmsg") { Glibc.sendmsg(fd, &message, pickerd_msg_nosignal) }
    }

    // MARK: Receiving

    /// Receives the next frame (`recvmsg(2)` with `MSG_CMSG_CLOEXEC`).
    /// - Returns: the frame, or `nil` when the peer closed the connection cleanly between frames.
    /// - Throws: `TransportError` `.wire` (malformed, oversized, undecodable, unknown message kind,
    ///   descriptor count mismatch), `.connectionClosed` (closed mid-frame), `.controlDataTruncated`,
    ///   `.systemCall`. After a throw the connection is out of step and should be closed.
    public func receive() throws(TransportError) -> ReceivedFrame? {
        let fd = try fd()
        return try receiveState.withLock { (decoder) throws(TransportError) -> ReceivedFrame? in
            var descriptors: [OwnedFileDescriptor] = []
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                let want = min(decoder.bytesWanted, buffer.count)
                let count = try receiveChunk(fd: fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]),
                                             descriptors: &descriptors)
                if count == 0 {
                    guard decoder.isInsideFrame || !descriptors.isEmpty else { return nil }
                    throw TransportError(.connectionClosed, "the peer closed the connection in the middle of a frame",
                                         wireError: WireError(.truncated, "stream ended inside a frame"))
                }
                let received = UnsafeRawBufferPointer(rebasing: buffer[..<count])
                let fed = Result { () throws(WireError) in try decoder.feed(received) }
                let frames = try fed.mapError(TransportError.init).get()
                guard let frame = frames.first else { continue }
                guard descriptors.count == Int(frame.header.descriptorCount) else {
                    throw TransportError(WireError(.descriptorMismatch,
                        "frame declares \(frame.header.descriptorCount) descriptors but \(descriptors.count) arrived"))
                }
                let decoded = Result { () throws(WireError) in try Framing.decodeEnvelope(frame.body) }
                let envelope = try decoded.mapError(TransportError.init).get()
                return ReceivedFrame(envelope: envelope, descriptors: descriptors)
            }
        }
    }

    private func receiveChunk(
        fd: Int32, into chunk: UnsafeMutableRawBufferPointer, descriptors: inout [OwnedFileDescriptor]
    ) throws(TransportError) -> Int {
        let iov = UnsafeMutablePointer<iovec>.allocate(capacity: 1)
        defer { iov.deallocate() }
        iov.initialize(to: iovec(iov_base: chunk.baseAddress, iov_len: chunk.count))
        let controlLength = pickerd_cmsg_space(MemoryLayout<Int32>.stride * max(limits.maxDescriptors, 1))
        let control = UnsafeMutableRawBufferPointer.allocate(byteCount: controlLength, alignment: MemoryLayout<cmsghdr>.alignment)
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0)
        var message = msghdr()
        message.msg_iov = iov
        message.msg_iovlen = 1
        message.msg_control = control.baseAddress
        message.msg_controllen = controlLength
        let count = try syscall("recvmsg") { Glibc.recvmsg(fd, &message, pickerd_msg_cmsg_cloexec) }
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
        if descriptors.count > limits.maxDescriptors {
            throw TransportError(WireError(.tooManyDescriptors,
                "\(descriptors.count) descriptors arrived for one frame; the limit is \(limits.maxDescriptors)"))
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
