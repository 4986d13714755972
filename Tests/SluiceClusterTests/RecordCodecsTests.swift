import SluiceCluster
import SluiceJSON
import Testing

/// A stream record's codecs: Opus RED's payload type survives the JSON, and a bad one from
/// another node makes the codecs unreadable rather than wrong.
struct RecordCodecsTests {
    @Test func redSurvivesTheRecord() throws {
        let codecs = RecordCodecs(audio: .init(name: "opus", payloadType: 111, clockRate: 48000, fmtp: "", redPayloadType: 63),
                                  video: nil, layers: 1)
        #expect(RecordCodecs(json: codecs.json) == codecs)
        #expect(codecs.json["audio"]?["redPayloadType"] == 63)
        let plain = RecordCodecs(audio: .init(name: "opus", payloadType: 111, clockRate: 48000, fmtp: ""), video: nil, layers: 1)
        #expect(plain.json["audio"]?["redPayloadType"] == nil)
        #expect(RecordCodecs(json: plain.json) == plain)
    }

    @Test(arguments: [JSONValue(128), JSONValue(-1), JSONValue("63"), JSONValue(111)])
    func aBadREDPayloadTypeIsRefused(_ red: JSONValue) {
        let audio: JSONValue = ["name": "opus", "payloadType": 111, "clockRate": 48000, "fmtp": "", "redPayloadType": red]
        #expect(RecordCodecs(json: ["audio": audio, "layers": 1]) == nil)
    }
}
