import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import Testing
@testable import SluiceSignaling

/// `apps[].startBitrate`: which `x-google-start-bitrate` a publish answer gets.
@Suite struct StartBitrateTests {
    static let on = StartBitrate(enabled: true)
    static let withDefault = StartBitrate(enabled: true, defaultKbps: 1500)

    @Test(arguments: [
        // (setting, declared video, app cap, expected)
        (on, VideoConstraints(bitrateKbps: 2500), nil, 2500),
        (on, VideoConstraints(bitrateKbps: 800, maxBitrateKbps: 3000), nil, 800),
        (on, VideoConstraints(maxBitrateKbps: 3000), nil, 3000),
        (on, VideoConstraints(bitrateKbps: 2500), 2000, 2000),
        (on, VideoConstraints(), nil, nil),
        // A cap alone is not an intent: nothing without a declared bitrate or a default.
        (on, VideoConstraints(), 2000, nil),
        (withDefault, VideoConstraints(), nil, 1500),
        (withDefault, VideoConstraints(), 1000, 1000),
        (withDefault, VideoConstraints(bitrateKbps: 2500), nil, 2500),
        (StartBitrate(enabled: false, defaultKbps: 1500), VideoConstraints(bitrateKbps: 2500), nil, nil),
    ] as [(StartBitrate, VideoConstraints, Int?, Int?)])
    func valueFromConstraintsDefaultAndCap(setting: StartBitrate, video: VideoConstraints, cap: Int?, expected: Int?) {
        let limits = PublishLimits(maxBitrateKbps: cap)
        #expect(setting.kbps(declared: StreamConstraints(video: video), limits: limits) == expected)
    }

    @Test func noVideoNoStartBitrate() {
        #expect(Self.withDefault.kbps(declared: StreamConstraints(video: nil), limits: PublishLimits()) == nil)
    }

    @Test func onByDefaultWithoutADefaultBitrate() {
        #expect(SignalingConfig.App(key: "a").startBitrate == StartBitrate(enabled: true, defaultKbps: nil))
    }

    /// Through `publish`: the declared bitrate, capped by the lower of the app's and the token's caps.
    @Test func publishRequestCarriesIt() throws {
        let harness = Harness { config in
            config.apps = [.init(key: "demo", limits: PublishLimits(maxBitrateKbps: 4000),
                                 startBitrate: StartBitrate(enabled: true, defaultKbps: 5000))]
        }
        let (session, _) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "a", "sdp": "v=0",
                                                               "constraints": ["video": ["bitrate": 2500]]]), from: session)
        harness.manager.receive(harness.request(2, "publish", ["stream": "b", "sdp": "v=0"]), from: session)
        #expect(harness.media.publishRequests.map(\.startBitrateKbps) == [2500, 4000])
    }

    @Test func offWritesNothing() throws {
        let harness = Harness { config in
            config.apps = [.init(key: "demo", startBitrate: StartBitrate(enabled: false, defaultKbps: 5000))]
        }
        let (session, _) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "a", "sdp": "v=0",
                                                               "constraints": ["video": ["bitrate": 2500]]]), from: session)
        #expect(harness.media.publishRequests.map(\.startBitrateKbps) == [nil])
    }
}
