@testable import SluiceControl
import SluiceMedia
import SluiceSDP
import SluiceVocabulary
import Testing

/// `Negotiation` hands the worker SDP's negotiated values as they are (one set of types):
/// extension ids, feedback, the simulcast layers that are not paused, the DTLS role.
@Suite struct NegotiationTests {
    static let transport = [
        "a=ice-ufrag:cliU", "a=ice-pwd:clientpasswordclientpass",
        "a=fingerprint:sha-256 11:22:33:44:55:66:77:88:99:00:11:22:33:44:55:66:77:88:99:00:11:22:33:44:55:66:77:88:99:00:11:22",
    ]

    static func videoOffer(setup: String, extmaps: [String]) -> String {
        ([
            "v=0", "o=- 7 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE v",
            "m=video 9 UDP/TLS/RTP/SAVPF 96 97", "c=IN IP4 0.0.0.0",
        ] + transport + [
            "a=setup:\(setup)", "a=mid:v", "a=sendonly", "a=rtcp-mux",
            "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 transport-cc",
            "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
        ] + extmaps + [
            "a=rid:a send", "a=rid:b send", "a=rid:c send", "a=simulcast:send a;~b;c", "",
        ]).joined(separator: "\r\n")
    }

    static func negotiate(_ offer: String) throws(MediaError) -> (String, EndpointParameters) {
        let (answer, parameters, _) = try Negotiation(fingerprint: "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99")
            .negotiate(offer: offer, role: .publish, handle: "pub-1", stream: "cam",
                       candidates: [ServerCandidate(ip: "127.0.0.1", port: 10000)], publisherTracks: nil,
                       constraints: StreamConstraints(), consentTimeoutMicros: 10_000_000)
        return (answer, parameters)
    }

    @Test func negotiatedValuesReachTheWorkerUnchanged() throws {
        let (answer, parameters) = try Self.negotiate(Self.videoOffer(setup: "actpass", extmaps: [
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
            "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
        ]))
        #expect(answer.contains("a=setup:passive"))
        #expect(parameters.role == .publish && parameters.handle == "pub-1" && parameters.stream == "cam")
        #expect(parameters.audio == nil)
        let video = try #require(parameters.video)
        #expect(video.kind == .video && video.codecName == "VP8" && video.payloadType == 96 && video.rtxPayloadType == 97)
        #expect(video.extensions == NegotiatedExtensions(mid: 4, rid: 10, repairedRid: 11, transportCC: 3))
        #expect(video.feedback == RTCPFeedbackSet(nack: true, pli: true, transportCC: true))
        // The paused layer is not the worker's business.
        #expect(video.simulcast == [SimulcastLayer(rid: "a"), SimulcastLayer(rid: "c")])
        #expect(parameters.transport.dtlsRole == .server)
        #expect(parameters.transport.remoteUfrag == "cliU")
    }

    /// An offer that says a=setup:passive makes the server the DTLS client.
    @Test func passiveOfferMakesTheServerTheDTLSClient() throws {
        let (answer, parameters) = try Self.negotiate(Self.videoOffer(setup: "passive", extmaps: []))
        #expect(answer.contains("a=setup:active"))
        #expect(parameters.transport.dtlsRole == .client)
        #expect(parameters.video?.extensions == NegotiatedExtensions())
    }

    /// An extmap id no RTP packet can carry is not negotiated (and not answered), as before.
    @Test func outOfRangeExtensionIDIsIgnored() throws {
        let (answer, parameters) = try Self.negotiate(Self.videoOffer(setup: "actpass", extmaps: [
            "a=extmap:256 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
        ]))
        #expect(parameters.video?.extensions == NegotiatedExtensions(transportCC: 3))
        #expect(!answer.contains("sdes:mid"))
    }

    @Test func sdpErrorsBecomeMediaErrors() {
        #expect(throws: MediaError.noCommonCodecs) {
            try Self.negotiate(Self.videoOffer(setup: "actpass", extmaps: []).replacingOccurrences(of: "VP8", with: "XYZ"))
        }
        #expect {
            try Self.negotiate("v=0\r\n")
        } throws: { error in
            if case MediaError.badSDP = error { return true }
            return false
        }
    }
}
