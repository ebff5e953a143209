// Coverage-guided fuzzing of what a peer controls first: the frame decoder (header checks, body
// accumulation) and the envelope decoder (protobuf-c unpack and the conversion to Swift values).
// Any input must end in frames or a typed WireError: a crash, a leak or an allocation past the
// limits is a finding. libFuzzer is driven through LLVMFuzzerRunDriver because SwiftPM gives an
// executable its own main.

import Glibc
import PickerdWire

// libFuzzer's archive may bring its own main, which calls this symbol; ours calls the driver.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    // As a stream of frames, fed in two pieces to exercise partial headers and bodies.
    var decoder = FrameDecoder(limits: FrameLimits(maxBodyBytes: 64 * 1024, maxDescriptors: 16))
    let split = size / 2
    do {
        var frames = try decoder.feed(UnsafeRawBufferPointer(rebasing: bytes[..<split]))
        frames += try decoder.feed(UnsafeRawBufferPointer(rebasing: bytes[split...]))
        for frame in frames {
            if let envelope = try? Framing.decodeEnvelope(frame.body) {
                // What decodes must encode again and decode to the same message. Compared as bytes:
                // a double field may hold NaN, which is not equal to itself.
                let encoded = envelope.serializedBytes()
                let again = try Framing.decodeEnvelope(encoded)
                precondition(again.serializedBytes() == encoded, "an envelope changed across encode and decode")
            }
        }
    } catch {
        _ = error.protocolCode
    }
    // As one envelope body.
    if let envelope = try? Framing.decodeEnvelope(Array(bytes)) {
        _ = envelope.serializedBytes()
    }
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>,
               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runDriver(&argc, &argv, fuzzOne))
