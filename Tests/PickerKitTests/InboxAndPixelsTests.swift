import Foundation
import PickerKit
import PickerdTransport
import PickerdWire
import Testing

@Suite("Inbox: frames collected off the picker's thread", .serialized)
struct InboxTests {
    @Test("frames arrive in order, each taken once, and pickerd closing is seen")
    func collects() throws {
        let (picker, pickerd) = try UnixSocket.pair()
        let arrivals = DispatchSemaphore(value: 0)
        let inbox = Inbox(picker) { arrivals.signal() }
        for id in 1...3 { try pickerd.send(Envelope(requestId: UInt64(id), body: .ack(Ack()))) }
        for _ in 1...3 { #expect(arrivals.wait(timeout: .now() + 30) == .success) }
        #expect(inbox.take().map(\.envelope.requestId) == [1, 2, 3])
        #expect(inbox.take().isEmpty, "what was taken is not taken again")
        #expect(!inbox.isClosed)
        try pickerd.close()
        #expect(arrivals.wait(timeout: .now() + 30) == .success)
        #expect(inbox.isClosed)
    }
}

@Suite("PixelImage: preview pixels")
struct PixelImageTests {
    /// A YUV4MPEG2 clip of one 2×2 frame, every pixel `y`, `cb`, `cr`.
    static func clip(y: UInt8, cb: UInt8, cr: UInt8, header: String = "YUV4MPEG2 W2 H2 F25:1 Ip A1:1 C420jpeg") -> [UInt8] {
        Array("\(header)\nFRAME\n".utf8) + [y, y, y, y, cb, cr]
    }

    @Test("grey decodes to grey")
    func grey() throws {
        let image = try #require(PixelImage(y4m: Self.clip(y: 100, cb: 128, cr: 128)))
        #expect(image.width == 2 && image.height == 2)
        #expect(image.pixels == [0x64_6464, 0x64_6464, 0x64_6464, 0x64_6464])
    }

    @Test("full-range BT.601 red decodes to red")
    func red() throws {
        // JPEG's YCbCr of (255, 0, 0) is (76, 85, 255): back to (254, 0, 0) after rounding.
        let image = try #require(PixelImage(y4m: Self.clip(y: 76, cb: 85, cr: 255)))
        #expect(image.pixels[0] == 0xFE_0000)
    }

    @Test("not YUV4MPEG2, a frame cut short, or another chroma layout is no image")
    func refused() {
        #expect(PixelImage(y4m: Array("P6\n2 2\n255\n".utf8)) == nil)
        #expect(PixelImage(y4m: Array(Self.clip(y: 1, cb: 2, cr: 3).dropLast())) == nil)
        #expect(PixelImage(y4m: Self.clip(y: 1, cb: 2, cr: 3, header: "YUV4MPEG2 W2 H2 C444")) == nil)
    }

    @Test("cells hold a top and a bottom pixel each")
    func cells() {
        let image = PixelImage(width: 2, height: 2, pixels: [0x11, 0x22, 0x33, 0x44])
        let cells = image.cells(columns: 2, rows: 1)
        #expect(cells.count == 1)
        #expect(cells[0].map { $0?.top } == [0x11, 0x22])
        #expect(cells[0].map { $0?.bottom } == [0x33, 0x44])
    }

    @Test("a picture narrower than its cells is centred, with nothing on either side")
    func letterbox() {
        let image = PixelImage(width: 2, height: 2, pixels: [0x11, 0x22, 0x33, 0x44])
        let cells = image.cells(columns: 4, rows: 1)
        #expect(cells[0].map { $0 == nil } == [true, false, false, true])
        #expect(cells[0][1]?.top == 0x11)
    }

    @Test("rgb is three bytes a pixel, red first")
    func rgb() {
        #expect(PixelImage(width: 1, height: 1, pixels: [0x12_3456]).rgb == [0x12, 0x34, 0x56])
    }
}
