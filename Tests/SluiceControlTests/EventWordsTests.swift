import SluiceControl
import SluiceMedia
import SluiceTransport
import SluiceVocabulary
import Testing

/// Every typed event of the media side against the words docs/protocol.md gives it
/// ("Events" and section 1's `info` strings), byte for byte.
@Suite struct EventWordsTests {
    typealias Words = EventWords.Words

    static let table: [(WorkerEvent, Words)] = [
        (.layerChanged("h", layer: 2, width: 1280, height: 720, reason: .constraints),
         Words(type: "layerChanged", by: nil,
               data: ["layer": .int(2), "width": .int(1280), "height": .int(720), "reason": .string("constraints")])),
        (.layerChanged("h", layer: 0, width: 320, height: 180, reason: .bandwidth),
         Words(type: "layerChanged", by: nil,
               data: ["layer": .int(0), "width": .int(320), "height": .int(180), "reason": .string("bandwidth")])),
        (.layerChanged("h", layer: 1, width: 640, height: 360, reason: .publisher),
         Words(type: "layerChanged", by: nil,
               data: ["layer": .int(1), "width": .int(640), "height": .int(360), "reason": .string("publisher")])),
        (.notEnoughBandwidth("h", kbps: 87),
         Words(type: "notEnoughBandwidth", by: nil, data: ["bandwidth": .int(87)])),
        (.connectionQuality("h", score: 4.32, level: .excellent),
         Words(type: "connectionQuality", by: nil, data: ["score": .double(4.32), "level": .string("excellent")])),
        (.connectionQuality("h", score: 1.5, level: .poor),
         Words(type: "connectionQuality", by: nil, data: ["score": .double(1.5), "level": .string("poor")])),
        (.limitExceeded("h", limit: .maxWidth, value: 1280, max: 640),
         Words(type: "limitExceeded", by: "server",
               data: ["limit": .string("maxWidth"), "value": .int(1280), "max": .int(640)])),
        (.limitExceeded("h", limit: .maxHeight, value: 720, max: 360),
         Words(type: "limitExceeded", by: "server",
               data: ["limit": .string("maxHeight"), "value": .int(720), "max": .int(360)])),
        (.limitExceeded("h", limit: .maxFps, value: 30, max: 15),
         Words(type: "limitExceeded", by: "server",
               data: ["limit": .string("maxFps"), "value": .int(30), "max": .int(15)])),
        (.layersWanted("h", rids: ["q", "f"], layers: [0, 2]),
         Words(type: "layersWanted", by: "server",
               data: ["rids": .array([.string("q"), .string("f")]), "layers": .array([.int(0), .int(2)])])),
        (.resize(stream: "s", width: 640, height: 480),
         Words(type: "resize", by: "publisher", data: ["width": .int(640), "height": .int(480)])),
    ]

    @Test(arguments: 0..<table.count)
    func streamEventWords(row: Int) {
        let (event, words) = Self.table[row]
        #expect(EventWords.words(event) == words)
    }

    /// Status changes become `streamStatus`, not `streamEvent`.
    @Test func statusEventsHaveNoEventWords() {
        #expect(EventWords.words(.publishing("h")) == nil)
        #expect(EventWords.words(.playing("h")) == nil)
        #expect(EventWords.words(.failed("h", .dtlsError)) == nil)
    }

    static let failures: [(FailureReason, String)] = [
        (.iceTimeout, "Failed by ICE timeout"),
        (.dtlsError, "Failed by DTLS error"),
        (.dtlsFingerprint, "Failed by DTLS fingerprint error"),
        (.rtpActivity, "Failed by RTP activity"),
        (.limitExceeded(.maxWidth), "Failed by limit maxWidth"),
        (.limitExceeded(.maxHeight), "Failed by limit maxHeight"),
        (.limitExceeded(.maxFps), "Failed by limit maxFps"),
    ]

    @Test(arguments: 0..<failures.count)
    func failureInfo(row: Int) {
        let (reason, info) = Self.failures[row]
        #expect(StatusInfo.failure(reason) == info)
    }

    /// Each transport failure keeps the words it had when the transport spelled them.
    @Test func transportFailures() {
        #expect(StatusInfo.failure(FailureReason(.iceTimeout)) == "Failed by ICE timeout")
        #expect(StatusInfo.failure(FailureReason(.dtlsError)) == "Failed by DTLS error")
        #expect(StatusInfo.failure(FailureReason(.dtlsFingerprint)) == "Failed by DTLS fingerprint error")
        #expect(TransportFailure.allCases.count == 3)
    }

    @Test func muteWords() {
        #expect(EventWords.mute(.audio, muted: true, by: .publisher) == Words(type: "audioMuted", by: "publisher"))
        #expect(EventWords.mute(.video, muted: false, by: .server) == Words(type: "videoUnmuted", by: "server"))
        #expect(EventWords.mute(.video, muted: true, by: .player) == Words(type: "videoMuted", by: "player"))
        #expect(EventWords.mute(.audio, muted: false, by: .player) == Words(type: "audioUnmuted", by: "player"))
    }
}
