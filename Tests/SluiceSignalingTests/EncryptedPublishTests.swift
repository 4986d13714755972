import SluiceControl
import SluiceMedia
import Testing
@testable import SluiceSignaling

/// `publish` with `e2ee` (docs/protocol.md section 6, "End-to-end encryption"): the flag
/// reaches the media engine, and no encrypted stream is recorded, whoever asks.
struct EncryptedPublishTests {
    @Test func theFlagReachesTheEngine() throws {
        let harness = Harness()
        let (session, _) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "a", "sdp": "v=0", "e2ee": true]), from: session)
        harness.manager.receive(harness.request(2, "publish", ["stream": "b", "sdp": "v=0"]), from: session)
        #expect(harness.media.publishRequests.map(\.e2ee) == [true, false])
    }

    @Test func recordingItIsRefusedWith1008() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "a", "sdp": "v=0", "e2ee": true, "record": true]),
                                from: session)
        #expect(output.last?["error"]?["code"] == 1008)
        #expect(output.last?["error"]?["message"]?.stringValue?.contains("end-to-end encrypted stream cannot be recorded") == true)
        #expect(harness.media.publishRequests.isEmpty)
    }

    /// An app that records every stream takes no encrypted one.
    @Test func anAppThatRecordsEverythingRefusesIt() throws {
        let harness = Harness { config in config.apps = [.init(key: "demo", recording: .always)] }
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "a", "sdp": "v=0", "e2ee": true]), from: session)
        #expect(output.last?["error"]?["code"] == 1008)
        #expect(output.last?["error"]?["message"]?.stringValue?.contains("end-to-end encrypted") == true)
        #expect(harness.media.publishRequests.isEmpty)
    }

    @Test func aFlagThatIsNoBooleanIsBadParams() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "a", "sdp": "v=0", "e2ee": "yes"]), from: session)
        #expect(output.last?["error"]?["code"] == -32602)
        #expect(harness.media.publishRequests.isEmpty)
    }
}
