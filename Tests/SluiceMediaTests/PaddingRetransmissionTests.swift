import SluiceRTP
import SluiceVocabulary
import Testing
@testable import SluiceMedia
@testable import SluiceTransport

/// A probe's padding-only packets go on the video stream with the forwarder's sequence
/// numbers, so a lost one is a hole the player NACKs. Unanswered, Chromium asked ten times
/// and stalled its frames behind the hole (interop/test_workers.py, half the frames of 8 s
/// lost); answered, the same padding goes again, and a NACK of media still reads the source.
struct PaddingRetransmissionTests {
    @Test func aNackedPaddingPacketIsSentAgainAndMediaStillComesFromTheSource() throws {
        let worker = try MediaTestSupport.worker()
        var video = MediaTestSupport.videoTrack()
        // transport-cc numbers every packet sent: the count of what left.
        video.extensions = NegotiatedExtensions(transportCC: 3)
        let play = MediaTestSupport.endpoint(.play, video: video, handle: "p")
        let transport = try MediaTestSupport.transport(worker, play)
        transport.connectForTesting()
        let consumer = Consumer(parameters: play, constraints: StreamConstraints(), transport: transport,
                                statsBoard: nil, instantJoin: false)
        let router = Router(stream: "s")
        let source = TestSource(layers: threeLayers)
        router.attach(source)
        router.add(consumer)
        let frame = MediaTestSupport.vp8Packet(ssrc: 1, sequence: 700, timestamp: 9000, keyFrame: true, size: (1280, 720))
        source.store(frame, layer: 2, sequence: 700)
        _ = source.forward(frame, layer: 2, keyFrame: true)
        let mediaSequence = UInt16(truncatingIfNeeded: try #require(consumer.state.forwarder.video?.munger.lastOutSequence))

        let padded = consumer.sender.sendPadding(budget: 3 * RTPPadding.maxBytes, now: 1_000_000) {
            consumer.state.forwarder.insertVideoPacket()
        }
        #expect(padded > 0)
        let paddingSequence = mediaSequence &+ 1
        let entry = try #require(consumer.sender.state.sent.lookup(paddingSequence), "padding not in the sent map")
        #expect(entry.layer == SentPacketMap.paddingLayer)
        #expect(entry.outTimestamp == consumer.sender.state.sent.lookup(mediaSequence)?.outTimestamp)

        let before = consumer.sender.state.transportSequence
        consumer.sender.retransmit(paddingSequence, from: router, now: 1_100_000)
        #expect(consumer.sender.state.transportSequence == before &+ 1, "the lost padding was not sent again")
        #expect(source.storedAsked.isEmpty, "padding has no source packet to read")

        consumer.sender.retransmit(mediaSequence, from: router, now: 1_200_000)
        #expect(consumer.sender.state.transportSequence == before &+ 2)
        #expect(source.storedAsked.map(\.sequence) == [700])
        // Control: a number never sent is not answered.
        consumer.sender.retransmit(paddingSequence &+ 100, from: router, now: 1_300_000)
        #expect(consumer.sender.state.transportSequence == before &+ 2)
    }
}
