import Testing
@testable import SluiceRecord

@Suite struct AV1DepacketizerTests {
    @Test func rebuildsAnOBUSplitAcrossPacketsWithZAndY() throws {
        // Packet 1: N=1, Y=1, W=0: a temporal delimiter (12 00 -> element "10"), a sequence
        // header (0a, no obu_size), and the first part of a frame OBU (type 6: 0x32).
        let sequenceHeader: [UInt8] = [0x08] + av1SequenceHeader1280x720
        let frameStart: [UInt8] = [0x30, 0x10, 0x01]  // show_existing_frame 0, frame_type KEY_FRAME
        var first: [UInt8] = [0x48, 0x01, 0x10]
        first += [UInt8(sequenceHeader.count)] + sequenceHeader
        first += [UInt8(frameStart.count)] + frameStart
        // Packet 2: Z=1 Y=1 W=1: the frame's middle. Packet 3: Z=1 W=1: its end.
        let second: [UInt8] = [0xd0, 0x02, 0x03]
        let third: [UInt8] = [0x90, 0x04]
        var depacketizer = AV1Depacketizer()
        let built = depacketizer.depacketize([
            videoPacket(7, 0, first), videoPacket(8, 0, second), videoPacket(9, 0, marker: true, third),
        ])
        let frame = try #require(built)
        let expectedHeader: [UInt8] = [0x0a, UInt8(av1SequenceHeader1280x720.count)] + av1SequenceHeader1280x720
        let expectedFrame: [UInt8] = [0x32, 0x05, 0x10, 0x01, 0x02, 0x03, 0x04]
        #expect(frame.data == expectedHeader + expectedFrame)  // the temporal delimiter is gone
        #expect(frame.isKeyFrame && frame.width == 1280 && frame.height == 720)
        #expect(depacketizer.sequenceHeaderOBU == expectedHeader)
        #expect(!depacketizer.canStartFrame(second))
    }

    @Test func keepsObuSizeAndExtensionAndReadsInterFrame() throws {
        // W=1: one element running to the end: a frame OBU with the extension byte and its own
        // obu_size (0x36 = type 6, E, S), frame_type INTER (01).
        let payload: [UInt8] = [0x10, 0x36, 0x28, 0x02, 0x30, 0x99]
        var depacketizer = AV1Depacketizer()
        let built = depacketizer.depacketize([videoPacket(1, 0, marker: true, payload)])
        let frame = try #require(built)
        #expect(frame.data == [0x36, 0x28, 0x02, 0x30, 0x99] && !frame.isKeyFrame)
    }

    @Test func brokenContinuationsGiveNil() {
        var depacketizer = AV1Depacketizer()
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x90, 0x01])]) == nil)  // Z with nothing to continue
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x50, 0x32, 0x10])]) == nil)  // Y on the last packet
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x00, 0x09, 0x32])]) == nil)  // length overrun
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x10, 0xb2])]) == nil)  // forbidden bit
    }

    @Test func leb128WritesLowGroupsFirst() {
        var bytes: [UInt8] = []
        LEB128Writer.append(300, to: &bytes)
        #expect(bytes == [0xac, 0x02])
    }
}
