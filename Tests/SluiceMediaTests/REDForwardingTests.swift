import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import Synchronization
import SluiceLog
import Testing
@testable import SluiceMedia

/// Opus RED through the forwarding side, with byte vectors: a player that agreed to RED gets
/// it whole (its block headers under its own Opus payload type), one that did not gets the
/// primary block alone, plain Opus passes as it is; the recorder keeps the primary; the
/// publisher's side parses RED once and drops what does not parse.
struct REDForwardingTests {
    /// One redundant block of 3 bytes, 960 samples old, then a 4-byte primary, both PT 111.
    static let red: [UInt8] = [0xef, 0x0f, 0x00, 0x03, 0x6f, 0xa1, 0xa2, 0xa3, 0xb1, 0xb2, 0xb3, 0xb4]

    private func parsed(_ bytes: [UInt8] = Self.red) throws -> REDPayload {
        try #require(bytes.withUnsafeBytes { REDPayload(parsing: $0, redPayloadType: 63) })
    }

    @Test func aREDPlayerGetsTheWholePayloadUnderItsREDType() throws {
        let out = REDForwarding(red: try parsed(), payloadCount: Self.red.count, opusPayloadType: 111, redPayloadType: 100)
        #expect(out.sendsRED && out.payloadType == 100 && out.range == 0..<12 && out.blocksToRewrite == 0)
    }

    @Test func aREDPlayerWithAnotherOpusTypeHasTheBlocksRewritten() throws {
        let out = REDForwarding(red: try parsed(), payloadCount: Self.red.count, opusPayloadType: 109, redPayloadType: 63)
        #expect(out.sendsRED && out.payloadType == 63 && out.blocksToRewrite == 2)
    }

    @Test func aPlayerWithoutREDGetsThePrimaryAsOpus() throws {
        let out = REDForwarding(red: try parsed(), payloadCount: Self.red.count, opusPayloadType: 111, redPayloadType: nil)
        #expect(!out.sendsRED && out.payloadType == 111)
        #expect(Array(Self.red[out.range]) == [0xb1, 0xb2, 0xb3, 0xb4])
    }

    /// A RED player of a publisher without RED gets plain Opus.
    @Test func plainOpusPassesAsItIs() {
        for redType: UInt8? in [nil, 63] {
            let out = REDForwarding(red: nil, payloadCount: 5, opusPayloadType: 111, redPayloadType: redType)
            #expect(!out.sendsRED && out.payloadType == 111 && out.range == 0..<5 && out.blocksToRewrite == 0)
        }
    }

    /// An RTP packet (PT 63, no extension) with `payload`.
    private func rtp(_ sequence: UInt16, payloadType: UInt8 = 63, payload: [UInt8] = Self.red) -> [UInt8] {
        [0x80, payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xff), 0, 0, 0x03, 0xc0, 0, 0, 0, 99] + payload
    }

    @Test func theRecorderKeepsThePrimaryOnly() throws {
        let ring = RecordingRing()
        let tap = RecordingTap(publisher: "p", stream: "s", ring: ring, layer: .top)
        var bytes = rtp(7)
        try bytes.withUnsafeMutableBytes { raw in
            let packet = try #require(RTPPacket(parsing: raw))
            var item = ForwardedPacket(packet: packet, kind: .audio, layer: 0, isKeyFrame: false, temporalLayer: nil,
                                       vp8: nil, clockRate: 48_000, audioLevel: nil, now: 1)
            item.red = try parsed()
            tap.forward(item)
        }
        guard case .packet(let kind, let payloadType, let sequence, _, _, let payload, _)? = ring.pop() else {
            Issue.record("nothing recorded")
            return
        }
        #expect(kind == .audio && payloadType == 111 && sequence == 7)
        #expect(payload == [0xb1, 0xb2, 0xb3, 0xb4])
    }

    private func producer(worker: MediaWorker? = nil) throws -> Producer {
        var audio = TrackParameters(kind: .audio, mid: "0", codecName: "opus", fmtp: "", payloadType: 111,
                                    rtxPayloadType: nil, clockRate: 48_000, extensions: NegotiatedExtensions(),
                                    remoteSSRCs: [99], remoteRTXSSRCs: [], localSSRC: 0x6000,
                                    feedback: .init(nack: false, pli: false))
        audio.redPayloadType = 63
        let base = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack())
        let endpoint = EndpointParameters(handle: "h", stream: "s", role: .publish, audio: audio, video: nil,
                                          transport: base.transport)
        return try Producer(parameters: endpoint,
                            transport: MediaTestSupport.transport(worker ?? MediaTestSupport.worker(), endpoint),
                            statsBoard: nil)
    }

    /// RED packets are counted; one whose blocks run past its end is dropped and counted apart,
    /// and the first such is logged (once for the publisher); plain Opus under the Opus type
    /// is not RED.
    @Test func thePublisherSideParsesOnceAndDropsBadRED() throws {
        let worker = try MediaTestSupport.worker()
        let lines = Mutex<[String]>([])
        worker.log = Log(level: .info, subsystem: "media", format: .json, sink: { line in lines.withLock { $0.append(line) } })
        let producer = try producer(worker: worker)
        let bad = [0xef, 0x0f, 0x00, 0x09, 0x6f, 0xa1] as [UInt8]
        let packets = [rtp(1), rtp(2, payload: bad), rtp(3), rtp(4, payloadType: 111), rtp(5, payload: bad)]
        for var bytes in packets {
            bytes.withUnsafeMutableBytes { producer.transport(producer.transport, didReceiveRTP: $0, now: 1_000_000) }
        }
        #expect(producer.stats(now: 1_000_000).audio?.redPackets == 2)
        #expect(producer.state.audio?.malformedRED == 2)
        #expect(lines.withLock { $0 }.count == 1)
        #expect(lines.withLock { $0 }.first?.contains("Opus RED") == true)
        #expect(lines.withLock { $0 }.first?.contains("\"stream\":") == true)
    }
}
