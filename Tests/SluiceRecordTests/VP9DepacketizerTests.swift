import Testing
@testable import SluiceRecord

@Suite struct VP9DepacketizerTests {
    @Test func nonFlexibleKeyFrameWithScalabilityStructure() throws {
        // I L B V, PictureID 5, layer byte (T0 S0), TL0PICIDX 1, SS: one layer with a size
        // (Y), 1280x720; then frame data.
        let first: [UInt8] = [0xaa, 0x05, 0x00, 0x01, 0x10, 0x05, 0x00, 0x02, 0xd0, 0x82, 0x49]
        // I L E, same PictureID.
        let last: [UInt8] = [0xa4, 0x05, 0x00, 0x01, 0x83, 0x00]
        var depacketizer = VP9Depacketizer()
        let built = depacketizer.depacketize([videoPacket(10, 3000, first), videoPacket(11, 3000, marker: true, last)])
        let frame = try #require(built)
        #expect(frame.data == [0x82, 0x49, 0x83, 0x00])
        #expect(frame.isKeyFrame && frame.width == 1280 && frame.height == 720)
    }

    @Test func flexibleModeInterFrame() throws {
        // I P F B E, PictureID 6, one P_DIFF (N clear).
        let only: [UInt8] = [0xdc, 0x06, 0x02, 0x86, 0x00, 0x40]
        var depacketizer = VP9Depacketizer()
        let built = depacketizer.depacketize([videoPacket(12, 6000, marker: true, only)])
        let frame = try #require(built)
        #expect(frame.data == [0x86, 0x00, 0x40] && !frame.isKeyFrame && frame.width == nil)
    }

    @Test func frameWithoutItsStartGivesNil() {
        var depacketizer = VP9Depacketizer()
        #expect(depacketizer.depacketize([videoPacket(11, 3000, marker: true, [0xa4, 0x05, 0x00, 0x01, 0x83])]) == nil)
        #expect(depacketizer.depacketize([videoPacket(11, 3000, marker: true, [0xaa, 0x05])]) == nil)  // cut short
        #expect(!depacketizer.canStartFrame([0xa4, 0x05, 0x00, 0x01]))
    }
}
