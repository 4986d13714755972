import SluiceRTP
import Testing
@testable import SluiceMedia

struct SimulcastDemuxerTests {
    @Test func ridBasedLayersLearnTheirSSRCs() {
        var layers = [VideoLayer(rid: "q", ssrc: nil), VideoLayer(rid: "h", ssrc: nil), VideoLayer(rid: "f", ssrc: nil)]
        #expect(SimulcastDemuxer.layer(ssrc: 7, payloadType: 96, rid: RTPToken("h"), mediaPayloadType: 96, layers: &layers) == 1)
        // Later packets carry no rid (browsers stop sending it): the SSRC is enough.
        #expect(SimulcastDemuxer.layer(ssrc: 7, payloadType: 96, rid: nil, mediaPayloadType: 96, layers: &layers) == 1)
        #expect(SimulcastDemuxer.layer(ssrc: 9, payloadType: 96, rid: RTPToken("f"), mediaPayloadType: 96, layers: &layers) == 2)
        // An unknown rid, a packet without rid on an unknown SSRC, or another payload type: not video.
        #expect(SimulcastDemuxer.layer(ssrc: 11, payloadType: 96, rid: RTPToken("x"), mediaPayloadType: 96, layers: &layers) == nil)
        #expect(SimulcastDemuxer.layer(ssrc: 12, payloadType: 96, rid: nil, mediaPayloadType: 96, layers: &layers) == nil)
        #expect(SimulcastDemuxer.layer(ssrc: 13, payloadType: 97, rid: RTPToken("q"), mediaPayloadType: 96, layers: &layers) == nil)
        // RTX by repaired-rid, then by its SSRC.
        #expect(SimulcastDemuxer.rtxLayer(ssrc: 21, repairedRid: RTPToken("f"), layers: &layers) == 2)
        #expect(SimulcastDemuxer.rtxLayer(ssrc: 21, repairedRid: nil, layers: &layers) == 2)
        #expect(SimulcastDemuxer.rtxLayer(ssrc: 22, repairedRid: nil, layers: &layers) == nil)
    }

    /// a=ssrc-group:SIM 100 200 300 with FID 101 201 301: known from the offer.
    @Test func ssrcBasedLayersAreKnownUpFront() {
        var layers = [VideoLayer(rid: nil, ssrc: 100, rtxSSRC: 101), VideoLayer(rid: nil, ssrc: 200, rtxSSRC: 201),
                      VideoLayer(rid: nil, ssrc: 300, rtxSSRC: 301)]
        #expect(SimulcastDemuxer.layer(ssrc: 300, payloadType: 96, rid: nil, mediaPayloadType: 96, layers: &layers) == 2)
        #expect(SimulcastDemuxer.layer(ssrc: 100, payloadType: 96, rid: nil, mediaPayloadType: 96, layers: &layers) == 0)
        #expect(SimulcastDemuxer.layer(ssrc: 400, payloadType: 96, rid: nil, mediaPayloadType: 96, layers: &layers) == nil)
        #expect(SimulcastDemuxer.rtxLayer(ssrc: 201, repairedRid: nil, layers: &layers) == 1)
    }

    @Test func singleLayerTakesTheFirstSSRC() {
        var layers = [VideoLayer(rid: nil, ssrc: nil)]
        #expect(SimulcastDemuxer.layer(ssrc: 5, payloadType: 96, rid: nil, mediaPayloadType: 96, layers: &layers) == 0)
        #expect(SimulcastDemuxer.layer(ssrc: 6, payloadType: 96, rid: nil, mediaPayloadType: 96, layers: &layers) == nil)
        #expect(SimulcastDemuxer.rtxLayer(ssrc: 8, repairedRid: nil, layers: &layers) == 0)
    }
}
