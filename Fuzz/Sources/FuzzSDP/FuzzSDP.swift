import SluiceSDP
import SluiceVocabulary

/// Parses arbitrary text; a parsed SDP must survive write -> parse unchanged, and any answer
/// the negotiator produces (publish or play) must parse back to the value it wrote.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let offer = try? SessionDescription(parsing: text) else { return 0 }
    guard let again = try? SessionDescription(parsing: offer.serialized()), again == offer else {
        fatalError("round trip changed the SDP:\n\(offer.serialized())")
    }
    let negotiator = SDPNegotiator()
    let candidates = [ServerCandidate(ip: "127.0.0.1", port: 10000)]
    for role in [StreamRole.publish, .play] {
        let parameters = AnswerParameters(
            role: role, iceUfrag: "u", icePwd: "p", fingerprint: "AB:CD", candidates: candidates,
            publisherCodecs: role == .play ? PublisherCodecs(audio: NegotiatedCodec(name: "opus", payloadType: 111, clockRate: 48000, channels: 2),
                                                           video: NegotiatedCodec(name: "H264", payloadType: 102, clockRate: 90000,
                                                                                  fmtp: "packetization-mode=1;profile-level-id=42e01f")) : nil,
            localAudio: LocalTrack(ssrc: 1, trackID: "a"), localVideo: LocalTrack(ssrc: 2, rtxSSRC: 3, trackID: "v"),
            videoBitrateKbps: 500, sessionID: 1)
        for negotiate in [{ try negotiator.negotiate(offer: offer, parameters: parameters) },
                          { try SDPNegotiator(configuration: .init(videoCodecs: ["H264", "AV1", "VP9", "VP8"]))
                              .negotiate(offer: offer, parameters: parameters) }] {
            guard let result = try? negotiate() else { continue }
            guard let answer = try? SessionDescription(parsing: result.answerSDP) else {
                fatalError("answer does not parse:\n\(result.answerSDP)")
            }
            guard answer == result.answer else { fatalError("answer changed when parsed back:\n\(result.answerSDP)") }
        }
    }
    return 0
}
