import PickerdDemoLibrary
import Testing
@testable import PickerdWire

@Suite("Framing: bad input gets a typed error, never a crash or a large allocation")
struct FramingTests {
    static let sample = Envelope(requestId: 7, body: .present(PresentRequest(suggestionToken: "", buttonTitle: "Add")))

    @Test("a frame decodes back to its envelope, byte by byte or all at once")
    func frameRoundTrip() throws {
        let frame = try Framing.encode(Self.sample, descriptorCount: 2)
        var whole = FrameDecoder()
        let frames = try whole.feed(frame + frame)
        #expect(frames.count == 2)
        #expect(frames[0].header.descriptorCount == 2)
        #expect(try Framing.decodeEnvelope(frames[0].body) == Self.sample)

        var bytewise = FrameDecoder()
        var collected: [FrameDecoder.RawFrame] = []
        for byte in frame {
            #expect(bytewise.bytesWanted >= 1)
            collected += try bytewise.feed([byte])
        }
        #expect(collected == [frames[0]])
        #expect(!bytewise.isInsideFrame)
    }

    @Test("a truncated frame is seen as unfinished, and a short header is a typed error")
    func truncated() throws {
        let frame = try Framing.encode(Self.sample)
        var decoder = FrameDecoder()
        #expect(try decoder.feed(Array(frame.dropLast())).isEmpty)
        #expect(decoder.isInsideFrame)
        #expect(decoder.bytesWanted == 1)
        #expect(throws: WireError(.truncated, "a frame header is 8 bytes; got 5")) {
            try FrameHeader.decode(Array(frame.prefix(5)), limits: .standard)
        }
    }

    @Test("a length over the maximum is refused from the header alone")
    func oversized() throws {
        var decoder = FrameDecoder(limits: FrameLimits(maxBodyBytes: 1024))
        // 0xFFFFFFFF bytes announced: the decoder must refuse before reserving anything.
        let error = try #require(throws: WireError.self) { try decoder.feed([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]) }
        #expect(error.code == .oversized)
        #expect(error.protocolCode == .frameTooLarge)
        let big = Envelope(requestId: 1, body: .error(ErrorInfo(code: .internal, message: String(repeating: "x", count: 2048))))
        #expect(throws: WireError.self) { try Framing.encode(big, limits: FrameLimits(maxBodyBytes: 1024)) }
    }

    @Test("too many descriptors and reserved bytes are refused from the header")
    func headerChecks() {
        var a = FrameDecoder(limits: FrameLimits(maxDescriptors: 4))
        #expect(throws: WireError.self) { try a.feed(FrameHeader(bodyLength: 0, descriptorCount: 5).bytes) }
        var b = FrameDecoder()
        let error = #expect(throws: WireError.self) { try b.feed([0, 0, 0, 0, 0, 0, 0, 1]) }
        #expect(error?.code == .reservedBitsSet)
    }

    @Test("a body that is not protobuf is undecodable")
    func undecodable() {
        let error = #expect(throws: WireError.self) { try Framing.decodeEnvelope([0xFF, 0xFF, 0xFF]) }
        #expect(error?.code == .undecodable)
        #expect(error?.protocolCode == .malformed)
    }

    @Test("an envelope with no known message decodes, with its request id and no body (a receiver answers UNKNOWN_REQUEST)")
    func unknownKind() throws {
        // Field 999, varint 1: valid protobuf, but no member of the body oneof; then an empty envelope.
        let field999: [UInt8] = [0xB8, 0x3E, 0x01]
        let unknown = try Framing.decodeEnvelope([0x08, 0x05] + field999)
        #expect(unknown.requestId == 5)
        #expect(unknown.body == nil)
        #expect(try Framing.decodeEnvelope([]) == Envelope(requestId: 0, body: nil))
    }

    @Test("random garbage never crashes the decoder")
    func garbage() {
        var generator = SeededRandom(seed: 0x5EED)
        var outcomes: [String: Int] = [:]
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 64)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            // Half the inputs get a plausible header (reserved bytes zero) so the length and
            // descriptor checks are reached too.
            if bytes.count >= 8 && generator.next() % 2 == 0 { bytes[6] = 0; bytes[7] = 0 }
            var decoder = FrameDecoder(limits: FrameLimits(maxBodyBytes: 4096, maxDescriptors: 8))
            do {
                for frame in try decoder.feed(bytes) {
                    _ = try Framing.decodeEnvelope(frame.body)
                    outcomes["decoded", default: 0] += 1
                }
                outcomes["incomplete", default: 0] += 1
            } catch {
                outcomes[error.code.description, default: 0] += 1
            }
        }
        // Garbage is refused for several distinct reasons, each typed.
        #expect((outcomes["reservedBitsSet"] ?? 0) > 0)
        #expect((outcomes["oversized"] ?? 0) > 0)
    }

    @Test("body bytes after a valid header that are garbage give a typed error")
    func garbageBodies() {
        var generator = SeededRandom(seed: 42)
        var undecodable = 0
        for _ in 0..<5_000 {
            let length = Int(generator.next() % 48) + 1
            let body = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            do {
                _ = try Framing.decodeEnvelope(body)
            } catch {
                #expect(error.code == .undecodable)
                if error.code == .undecodable { undecodable += 1 }
            }
        }
        #expect(undecodable > 0)
    }

    @Test("version negotiation picks the highest common version or refuses")
    func versions() throws {
        #expect(try ProtocolVersion.negotiate(peerMinimum: 1, peerMaximum: 9) == ProtocolVersion.current)
        let error = #expect(throws: WireError.self) { try ProtocolVersion.negotiate(peerMinimum: 2, peerMaximum: 3) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.protocolCode == .unsupportedVersion)
        #expect(throws: WireError.self) { try ProtocolVersion.negotiate(peerMinimum: 0, peerMaximum: 0) }
    }
}
