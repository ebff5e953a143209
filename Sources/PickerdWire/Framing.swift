/// Limits a receiver enforces before it allocates anything for a frame.
public struct FrameLimits: Hashable, Sendable {
    /// The largest frame body accepted, in bytes. Media travel as descriptors, so frames stay small.
    public var maxBodyBytes: Int
    /// The most descriptors one frame may carry (the kernel's SCM_MAX_FD is 253).
    public var maxDescriptors: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maxBodyBytes: the largest frame body accepted, at most `UInt32.max`.
    ///   - maxDescriptors: the most descriptors per frame, at most 253.
    public init(maxBodyBytes: Int = 4 << 20, maxDescriptors: Int = 253) {
        precondition(maxBodyBytes >= 0 && maxBodyBytes <= Int(UInt32.max), "maxBodyBytes out of range")
        precondition(maxDescriptors >= 0 && maxDescriptors <= 253, "maxDescriptors out of range")
        self.maxBodyBytes = maxBodyBytes
        self.maxDescriptors = maxDescriptors
    }

    /// 4 MiB bodies, 253 descriptors.
    public static let standard = FrameLimits()
}

/// The 8-byte header in front of every frame body: body length (u32), descriptor count (u16) and a
/// reserved u16 that must be zero, all big-endian.
public struct FrameHeader: Hashable, Sendable {
    /// The header's size on the wire.
    public static let byteCount = 8

    /// The length of the body that follows, in bytes.
    public var bodyLength: UInt32
    /// How many descriptors the sender attached to this frame (with its first byte, SCM_RIGHTS).
    public var descriptorCount: UInt16

    /// Creates a header.
    /// - Parameters:
    ///   - bodyLength: the length of the body that follows.
    ///   - descriptorCount: how many descriptors travel with the frame.
    public init(bodyLength: UInt32, descriptorCount: UInt16) {
        self.bodyLength = bodyLength
        self.descriptorCount = descriptorCount
    }

    /// The header's 8 bytes.
    public var bytes: [UInt8] {
        [
            UInt8(truncatingIfNeeded: bodyLength >> 24), UInt8(truncatingIfNeeded: bodyLength >> 16),
            UInt8(truncatingIfNeeded: bodyLength >> 8), UInt8(truncatingIfNeeded: bodyLength),
            UInt8(truncatingIfNeeded: descriptorCount >> 8), UInt8(truncatingIfNeeded: descriptorCount),
            0, 0,
        ]
    }

    /// Reads and checks a header against `limits`, before anything is allocated for the body.
    /// - Parameters:
    ///   - bytes: exactly ``byteCount`` bytes.
    ///   - limits: the receiver's limits.
    /// - Returns: the header.
    /// - Throws: `WireError` `.truncated` (too few bytes), `.reservedBitsSet`, `.oversized`,
    ///   `.tooManyDescriptors`.
    public static func decode(_ bytes: some Collection<UInt8>, limits: FrameLimits) throws(WireError) -> FrameHeader {
        guard bytes.count >= byteCount else {
            throw WireError(.truncated, "a frame header is \(byteCount) bytes; got \(bytes.count)")
        }
        let b = Array(bytes.prefix(byteCount))
        let length = UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
        let fds = UInt16(b[4]) << 8 | UInt16(b[5])
        guard b[6] == 0, b[7] == 0 else {
            throw WireError(.reservedBitsSet, "the frame header's reserved bytes are not zero (not a pickerd frame?)")
        }
        guard Int(length) <= limits.maxBodyBytes else {
            throw WireError(.oversized, "frame body of \(length) bytes is over the \(limits.maxBodyBytes)-byte limit")
        }
        guard Int(fds) <= limits.maxDescriptors else {
            throw WireError(.tooManyDescriptors, "frame declares \(fds) descriptors; the limit is \(limits.maxDescriptors)")
        }
        return FrameHeader(bodyLength: length, descriptorCount: fds)
    }
}

/// Encoding and decoding whole frames. No I/O: the transport moves the bytes.
public enum Framing {
    /// Encodes an envelope as one frame: header and body.
    /// - Parameters:
    ///   - envelope: the message.
    ///   - descriptorCount: how many descriptors the transport will attach.
    ///   - limits: the limits the peer enforces.
    /// - Returns: the frame's bytes.
    /// - Throws: `WireError` `.oversized` or `.tooManyDescriptors` when the peer would refuse it.
    public static func encode(
        _ envelope: Envelope, descriptorCount: Int = 0, limits: FrameLimits = .standard
    ) throws(WireError) -> [UInt8] {
        let body = envelope.serializedBytes()
        guard body.count <= limits.maxBodyBytes else {
            throw WireError(.oversized, "message of \(body.count) bytes is over the \(limits.maxBodyBytes)-byte limit")
        }
        guard descriptorCount >= 0, descriptorCount <= limits.maxDescriptors else {
            throw WireError(.tooManyDescriptors, "\(descriptorCount) descriptors; the limit is \(limits.maxDescriptors)")
        }
        let header = FrameHeader(bodyLength: UInt32(body.count), descriptorCount: UInt16(descriptorCount))
        return header.bytes + body
    }

    /// Decodes a frame body into an envelope that carries a message this version knows.
    /// - Parameter body: the bytes after the header.
    /// - Returns: the envelope; its `body` is never `nil`.
    /// - Throws: `WireError` `.undecodable` (not a valid Envelope) or `.unknownMessageKind` (no known
    ///   message in it, for example one from a newer protocol version).
    public static func decodeEnvelope(_ body: [UInt8]) throws(WireError) -> Envelope {
        let envelope = try Envelope(serializedBytes: body)
        guard envelope.body != nil else {
            throw WireError(.unknownMessageKind, "the envelope (request \(envelope.requestId)) carries no message this version knows")
        }
        return envelope
    }
}

/// Splits a byte stream into frames, incrementally. No I/O.
///
/// The decoder never buffers more than one header and one body, and allocates a body only after its
/// header passed ``FrameHeader/decode(_:limits:)``. ``bytesWanted`` tells a transport how many bytes
/// finish the current header or body, so it can read exactly up to a frame boundary (which keeps the
/// descriptors of one frame apart from the next).
public struct FrameDecoder: Sendable {
    /// A complete frame: its header and body.
    public struct RawFrame: Hashable, Sendable {
        /// The frame's header.
        public var header: FrameHeader
        /// The frame's body (an encoded Envelope).
        public var body: [UInt8]
    }

    private enum State: Sendable {
        case header([UInt8])
        case body(FrameHeader, [UInt8])
    }

    /// The limits checked on every header.
    public let limits: FrameLimits
    private var state: State = .header([])

    /// Creates a decoder.
    /// - Parameter limits: the limits checked on every header.
    public init(limits: FrameLimits = .standard) {
        self.limits = limits
    }

    /// How many more bytes complete the header or body being read (never 0).
    public var bytesWanted: Int {
        switch state {
        case .header(let buffer): FrameHeader.byteCount - buffer.count
        case .body(let header, let buffer): max(1, Int(header.bodyLength) - buffer.count)
        }
    }

    /// Whether a frame has been started but not finished (at end of stream, that is a truncation).
    public var isInsideFrame: Bool {
        switch state {
        case .header(let buffer): !buffer.isEmpty
        case .body: true
        }
    }

    /// Feeds bytes and returns the frames they complete.
    /// - Parameter bytes: the next bytes of the stream.
    /// - Returns: every frame completed by these bytes, in order.
    /// - Throws: `WireError` from ``FrameHeader/decode(_:limits:)``; the decoder is unusable after.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(WireError) -> [RawFrame] {
        var frames: [RawFrame] = []
        var rest = bytes[...]
        while true {
            switch state {
            case .header(var buffer):
                let take = min(FrameHeader.byteCount - buffer.count, rest.count)
                buffer.append(contentsOf: rest.prefix(take))
                rest = rest.dropFirst(take)
                guard buffer.count == FrameHeader.byteCount else {
                    state = .header(buffer)
                    return frames
                }
                let header = try FrameHeader.decode(buffer, limits: limits)
                var body: [UInt8] = []
                body.reserveCapacity(Int(header.bodyLength))
                state = .body(header, body)
            case .body(let header, var body):
                let take = min(Int(header.bodyLength) - body.count, rest.count)
                body.append(contentsOf: rest.prefix(take))
                rest = rest.dropFirst(take)
                guard body.count == Int(header.bodyLength) else {
                    state = .body(header, body)
                    return frames
                }
                frames.append(RawFrame(header: header, body: body))
                state = .header([])
                if rest.isEmpty { return frames }
            }
        }
    }
}

/// Protocol versions and their negotiation in the hello exchange.
public enum ProtocolVersion {
    /// The lowest version this build speaks.
    public static let minimum: UInt32 = 1
    /// The highest version this build speaks.
    public static let current: UInt32 = 1

    /// The highest version both sides speak.
    /// - Parameters:
    ///   - peerMinimum: the lowest version the peer speaks.
    ///   - peerMaximum: the highest version the peer speaks.
    /// - Returns: the version to use.
    /// - Throws: `WireError` `.unsupportedVersion` when the ranges do not overlap.
    public static func negotiate(peerMinimum: UInt32, peerMaximum: UInt32) throws(WireError) -> UInt32 {
        let high = min(peerMaximum, current)
        guard peerMinimum <= peerMaximum, high >= max(peerMinimum, minimum) else {
            throw WireError(.unsupportedVersion,
                            "peer speaks versions \(peerMinimum)…\(peerMaximum); this build speaks \(minimum)…\(current)")
        }
        return high
    }
}
