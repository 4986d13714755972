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

    /// Two spatial layers of one picture (a K-SVC key picture recorded above its lowest layer):
    /// one superframe, the layers' frames followed by the index that sizes them (annex B).
    @Test func twoSpatialLayersMakeOneSuperframe() throws {
        // I L B E, PictureID 7, T0 S0, TL0PICIDX 2: 3 bytes of frame. Then S1 (D), 2 packets.
        let base: [UInt8] = [0xac, 0x07, 0x00, 0x02, 0x82, 0x49, 0x83]
        let upperStart: [UInt8] = [0xa8, 0x07, 0x03, 0x02, 0x84, 0x00]
        let upperEnd: [UInt8] = [0xa4, 0x07, 0x03, 0x02, 0x85]
        var depacketizer = VP9Depacketizer()
        let built = depacketizer.depacketize([videoPacket(20, 9000, base), videoPacket(21, 9000, upperStart),
                                              videoPacket(22, 9000, marker: true, upperEnd)])
        let frame = try #require(built)
        // 0xc1: superframe marker, 1-byte sizes, 2 frames; sizes 3 and 3.
        #expect(frame.data == [0x82, 0x49, 0x83, 0x84, 0x00, 0x85, 0xc1, 3, 3, 0xc1])
        // Control: one layer alone gets no index.
        let single = depacketizer.depacketize([videoPacket(30, 12000, marker: true, base)])
        #expect(single?.data == [0x82, 0x49, 0x83])
    }

    @Test func frameWithoutItsStartGivesNil() {
        var depacketizer = VP9Depacketizer()
        #expect(depacketizer.depacketize([videoPacket(11, 3000, marker: true, [0xa4, 0x05, 0x00, 0x01, 0x83])]) == nil)
        #expect(depacketizer.depacketize([videoPacket(11, 3000, marker: true, [0xaa, 0x05])]) == nil)  // cut short
        #expect(!depacketizer.canStartFrame([0xa4, 0x05, 0x00, 0x01]))
    }
}
