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
    ///   - bytes: at least ``byteCount`` bytes; the first ``byteCount`` are read.
    ///   - limits: the receiver's limits.
    /// - Returns: the header.
    /// - Throws: `WireError` `.truncated` (too few bytes), `.reservedBitsSet`, `.oversized`,
    ///   `.tooManyDescriptors`.
    public static func decode(_ bytes: [UInt8], limits: FrameLimits) throws(WireError) -> FrameHeader {
        guard bytes.count >= byteCount else {
            throw WireError(.truncated, "a frame header is \(byteCount) bytes; got \(bytes.count)")
        }
        return try decode(word: bytes.prefix(byteCount).reduce(0) { $0 << 8 | UInt64($1) }, limits: limits)
    }

    /// Checks a header held as one big-endian 64-bit word.
    static func decode(word: UInt64, limits: FrameLimits) throws(WireError) -> FrameHeader {
        let length = UInt32(truncatingIfNeeded: word >> 32)
        let fds = UInt16(truncatingIfNeeded: word >> 16)
        guard word & 0xFFFF == 0 else {
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
        var frame = serializeThroughC(envelope, headerRoom: FrameHeader.byteCount)
        let bodyLength = frame.count - FrameHeader.byteCount
        guard bodyLength <= limits.maxBodyBytes else {
            throw WireError(.oversized, "message of \(bodyLength) bytes is over the \(limits.maxBodyBytes)-byte limit")
        }
        guard descriptorCount >= 0, descriptorCount <= limits.maxDescriptors else {
            throw WireError(.tooManyDescriptors, "\(descriptorCount) descriptors; the limit is \(limits.maxDescriptors)")
        }
        let header = FrameHeader(bodyLength: UInt32(bodyLength), descriptorCount: UInt16(descriptorCount))
        frame.replaceSubrange(0..<FrameHeader.byteCount, with: header.bytes)
        return frame
    }

    /// Decodes a frame body into an envelope.
    /// - Parameter body: the bytes after the header.
    /// - Returns: the envelope; its `body` is `nil` when it carries no message this version knows (an
    ///   empty envelope, or a kind from a newer protocol version). That is not a framing error: the
    ///   stream is still in step, and a receiver answers `UNKNOWN_REQUEST` and reads on.
    /// - Throws: `WireError` `.undecodable` when the bytes are not a valid Envelope.
    public static func decodeEnvelope(_ body: [UInt8]) throws(WireError) -> Envelope {
        try Envelope(serializedBytes: body)
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
        /// Reading a header: the bytes so far, shifted into one word, and how many.
        case header(word: UInt64, count: Int)
        case body(FrameHeader, [UInt8])
    }

    /// The limits checked on every header.
    public let limits: FrameLimits
    private var state: State = .header(word: 0, count: 0)

    /// Creates a decoder.
    /// - Parameter limits: the limits checked on every header.
    public init(limits: FrameLimits = .standard) {
        self.limits = limits
    }

    /// How many more bytes complete the header or body being read (never 0).
    public var bytesWanted: Int {
        switch state {
        case .header(_, let count): FrameHeader.byteCount - count
        case .body(let header, let buffer): max(1, Int(header.bodyLength) - buffer.count)
        }
    }

    /// Whether a frame has been started but not finished (at end of stream, that is a truncation).
    public var isInsideFrame: Bool {
        switch state {
        case .header(_, let count): count > 0
        case .body: true
        }
    }

    /// Feeds bytes and returns the frames they complete.
    /// - Parameter bytes: the next bytes of the stream.
    /// - Returns: every frame completed by these bytes, in order.
    /// - Throws: `WireError` from ``FrameHeader/decode(_:limits:)``; the decoder is unusable after.
    public mutating func feed(_ bytes: [UInt8]) throws(WireError) -> [RawFrame] {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(WireError) in try feed(raw) } }
        return try result.get()
    }

    /// Feeds bytes and returns the frames they complete, without copying them first.
    /// - Parameter bytes: the next bytes of the stream.
    /// - Returns: every frame completed by these bytes, in order.
    /// - Throws: `WireError` from ``FrameHeader/decode(_:limits:)``; the decoder is unusable after.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> [RawFrame] {
        var frames: [RawFrame] = []
        var offset = 0
        while true {
            let rest = bytes.count - offset
            switch state {
            case .header(var word, var count):
                while count < FrameHeader.byteCount && offset < bytes.count {
                    word = word << 8 | UInt64(bytes[offset])
                    count += 1
                    offset += 1
                }
                guard count == FrameHeader.byteCount else {
                    state = .header(word: word, count: count)
                    return frames
                }
                let header = try FrameHeader.decode(word: word, limits: limits)
                var body: [UInt8] = []
                body.reserveCapacity(Int(header.bodyLength))
                state = .body(header, body)
            case .body(let header, var body):
                // Release the state's reference first so the append below does not copy the body.
                state = .header(word: 0, count: 0)
                let take = min(Int(header.bodyLength) - body.count, rest)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]))
                offset += take
                guard body.count == Int(header.bodyLength) else {
                    state = .body(header, body)
                    return frames
                }
                frames.append(RawFrame(header: header, body: body))
                if offset == bytes.count { return frames }
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
