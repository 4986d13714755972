import Testing
@testable import SluiceRTP

@Test func parsesTOCAndDetectsDTX() throws {
    let frame = try #require([UInt8]([0xfc, 0xff, 0xfe, 0x01]).withUnsafeBytes { OpusPayload(parsing: $0) })
    #expect(frame.configuration == 31 && frame.isStereo && frame.frameCountCode == 0)
    #expect(!frame.isDTX)
    let silence = try #require([UInt8]([0x78]).withUnsafeBytes { OpusPayload(parsing: $0) })
    #expect(silence.configuration == 15 && !silence.isStereo)
    #expect(silence.isDTX)
    #expect([UInt8]().withUnsafeBytes { OpusPayload(parsing: $0) } == nil)
}
