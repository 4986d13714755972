import SluiceTransport
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// A publisher's audio level in its stats: read from each packet's RFC 6464 extension (the
/// voice-activity bit left out), and absent when the extension was not negotiated.
struct ProducerAudioLevelTests {
    private func producer(levelID: UInt8?) throws -> Producer {
        let audio = TrackParameters(kind: .audio, mid: "0", codecName: "opus", fmtp: "", payloadType: 111,
                                    rtxPayloadType: nil, clockRate: 48_000,
                                    extensions: NegotiatedExtensions(audioLevel: levelID), remoteSSRCs: [99],
                                    remoteRTXSSRCs: [], localSSRC: 0x6000, feedback: .init(nack: false, pli: false))
        var endpoint = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack())
        endpoint = EndpointParameters(handle: "h", stream: "s", role: .publish, audio: audio, video: nil,
                                      transport: endpoint.transport)
        return try Producer(parameters: endpoint, transport: MediaTestSupport.transport(MediaTestSupport.worker(), endpoint),
                            statsBoard: nil)
    }

    /// An Opus packet with a one-byte header extension (id 1) carrying `byte`.
    private func packet(_ sequence: UInt16, byte: UInt8) -> [UInt8] {
        [0x90, 111, UInt8(sequence >> 8), UInt8(sequence & 0xff), 0, 0, UInt8(sequence >> 8), UInt8(sequence & 0xff),
         0, 0, 0, 99, 0xbe, 0xde, 0, 1, 0x10, byte, 0, 0, 0xfc, 0xff, 0xfe]
    }

    @Test func theLevelIsInTheStats() throws {
        let producer = try producer(levelID: 1)
        var now: UInt64 = 1_000_000
        for sequence in 0..<12 as Range<UInt16> {
            var bytes = packet(sequence, byte: 0x80 | 25)  // voice activity set, -25 dBov
            bytes.withUnsafeMutableBytes { producer.transport(producer.transport, didReceiveRTP: $0, now: now) }
            now += 20_000
        }
        #expect(producer.stats(now: now).audio?.level == -25)
        #expect(try self.producer(levelID: nil).stats(now: now).audio?.level == nil)
    }
}
