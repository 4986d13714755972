import SluiceRTP
import SluiceVocabulary
import Testing
@testable import SluiceMedia

struct PacketRecordRingTests {
    @Test func indexWrapsAtTheRingsSize() {
        let ring = PacketRecordRing(count: 8, repeating: 0)
        for i in 0..<20 { ring[i] = i }
        #expect((0..<8).map { ring[$0] } == [16, 17, 18, 19, 12, 13, 14, 15])
        #expect(ring[65_535] == ring[7])
    }

    @Test func anEmptyRingSaysSo() {
        #expect(PacketRecordRing(count: 0, repeating: 0).isEmpty)
        #expect(!PacketRecordRing(count: 1, repeating: 0).isEmpty)
    }

    /// SendHistory and SentPacketMap keep their lookups' meaning on the ring: a slot holds
    /// the newest sequence written to it, and an overwritten or never-written one is nil.
    @Test func sentPacketMapAndSendHistoryForgetOverwrittenSlots() {
        let map = SentPacketMap()
        let first = SentPacketMap.Entry(outTimestamp: 1, pictureID: -1, outSequence: 100, sourceSequence: 7,
                                        tl0PicIdx: -1, layer: 0, valid: true)
        map.record(first)
        #expect(map.lookup(100) == first)
        #expect(map.lookup(101) == nil)
        map.record(.init(outTimestamp: 2, pictureID: -1, outSequence: 100 &+ UInt16(SentPacketMap.slots),
                         sourceSequence: 8, tl0PicIdx: -1, layer: 0, valid: true))
        #expect(map.lookup(100) == nil)

        var history = SendHistory()
        history.record(sequence: 65_535, size: 1_200, now: 5_000_000)
        history.record(sequence: 0, size: 300, now: 5_000_100)
        #expect(history.lookup(65_535)?.size == 1_200)
        #expect(history.lookup(0)?.sendMicros == 5_000_100)
        #expect(history.lookup(1) == nil)
        history.record(sequence: UInt16(SendHistory.capacity), size: 900, now: 5_000_200)
        #expect(history.lookup(0) == nil)
    }

    /// The mid goes inline when it fits an RTPToken, else it is kept as bytes for the list
    /// path (a mid over 16 bytes never takes the one-byte form).
    @Test func outgoingTrackHoldsTheMidInlineOrAsBytes() {
        func track(mid: String) -> OutgoingTrack {
            OutgoingTrack(parameters: TrackParameters(
                kind: .video, mid: mid, codecName: "VP8", fmtp: "", payloadType: 96, rtxPayloadType: nil,
                clockRate: 90000, extensions: NegotiatedExtensions(mid: 9, absSendTime: 2), remoteSSRCs: [],
                remoteRTXSSRCs: [], localSSRC: 1, feedback: .init(nack: true)))
        }
        let short = track(mid: "1")
        #expect(short.mid == RTPToken("1"))
        #expect(short.longMid.isEmpty)
        #expect(short.oneByteExtensions)
        #expect(short.extensionIDs.mid == 9)

        let long = String(repeating: "m", count: 40)
        let longTrack = track(mid: long)
        #expect(longTrack.mid == nil)
        #expect(longTrack.longMid == Array(long.utf8))
        #expect(!longTrack.oneByteExtensions)
    }
}
