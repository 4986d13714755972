import SluiceControl
import SluiceMedia
import SluiceVocabulary
import Testing
@testable import SluiceSignaling

struct PublishLimitsTests {
    @Test(arguments: [
        (VideoConstraints(bitrateKbps: 2000), true),
        (VideoConstraints(bitrateKbps: 2001), false),
        (VideoConstraints(maxBitrateKbps: 3000), false),
        (VideoConstraints(width: 1280, height: 720, fps: 30), true),
        (VideoConstraints(width: 1920), false),
        (VideoConstraints(height: 1080), false),
        (VideoConstraints(fps: 60), false),
    ])
    func capsPublishConstraints(video: VideoConstraints, allowed: Bool) {
        let limits = PublishLimits(maxBitrateKbps: 2000, maxWidth: 1280, maxHeight: 720, maxFps: 30)
        #expect(limits.allow(StreamConstraints(video: video)) == allowed)
        #expect(limits.allow(StreamConstraints(video: nil)))
        #expect(PublishLimits().allow(StreamConstraints(video: video)))
    }
}

struct PublishLimitsSessionTests {
    @Test func publishAndUpdateOverTheAppLimitsGet1009() throws {
        let harness = Harness { config in
            config.apps = [.init(key: "demo", limits: PublishLimits(maxBitrateKbps: 1000))]
        }
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0",
                                                               "constraints": ["video": ["bitrate": 5000]]]), from: session)
        #expect(output.last?["error"]?["code"] == 1009)
        #expect(output.last?["error"]?["data"]?["reason"] == "CONSTRAINTS_EXCEED_LIMITS")
        #expect(harness.media.publishRequests.isEmpty)
        harness.manager.receive(harness.request(2, "publish", ["stream": "cam", "sdp": "v=0",
                                                               "constraints": ["video": ["bitrate": 800]]]), from: session)
        let reply = output.messages.first { $0["id"] == 2 }
        let handle = try #require(reply?["result"]?["handle"]?.stringValue)
        harness.manager.receive(harness.request(3, "update", ["handle": .string(handle),
                                                              "constraints": ["video": ["bitrate": 1500]]]), from: session)
        #expect(output.messages.first { $0["id"] == 3 }?["error"]?["code"] == 1009)
        harness.manager.receive(harness.request(4, "update", ["handle": .string(handle),
                                                              "constraints": ["video": ["bitrate": 900]]]), from: session)
        #expect(output.messages.first { $0["id"] == 4 }?["result"] == [:])
    }
}
