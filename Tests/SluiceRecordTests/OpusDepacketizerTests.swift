import Testing
@testable import SluiceRecord

@Suite struct OpusDepacketizerTests {
    @Test func packetIsTheFrame() throws {
        var depacketizer = OpusDepacketizer()
        let built = depacketizer.depacketize([audioPacket(1, 960, [0x78, 0x01])])
        let frame = try #require(built)
        #expect(frame.data == [0x78, 0x01] && frame.isKeyFrame)
        #expect(depacketizer.depacketize([audioPacket(1, 960, [])]) == nil)
    }
}
