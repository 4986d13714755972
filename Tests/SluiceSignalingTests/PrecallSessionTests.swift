import SluiceControl
import SluiceJSON
import SluiceMedia
@testable import SluiceSignaling
import Testing

/// `precall` (docs/protocol.md section 6, "Pre-call test") through the session manager, with a
/// fake media side: params, the app's rules and rate, and how its events reach the client.
struct PrecallSessionTests {
    private func precall(_ harness: Harness, _ session: RPCSession, id: Int = 1,
                         _ extra: JSONObject = [:]) {
        var params: JSONObject = ["sdp": "v=0\r\n"]
        for (key, value) in extra { params[key] = value }
        harness.manager.receive(harness.request(id, "precall", .object(params)), from: session)
    }

    @Test func answersWithAHandleAndTheAppsDefaults() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        precall(harness, session)
        let result = try #require(output.last?["result"])
        #expect(result["handle"]?.stringValue == "pc1")
        #expect(result["sdp"]?.stringValue?.hasPrefix("v=0") == true)
        let request = try #require(harness.media.precallRequests.first)
        #expect(request.seconds == PrecallPolicy().seconds && request.maxKbps == PrecallPolicy().maxKbps)
        precall(harness, session, id: 2, ["seconds": 3])
        #expect(harness.media.precallRequests.last?.seconds == 3)
    }

    @Test(arguments: [JSONValue(0), JSONValue(11), JSONValue(2.5), "8", .bool(true)])
    func badSecondsAreInvalidParams(_ seconds: JSONValue) {
        let harness = Harness()
        let (session, output) = harness.connected()
        precall(harness, session, ["seconds": seconds])
        #expect(output.last?["error"]?["code"]?.intValue == -32602)
        #expect(output.last?["error"]?["message"]?.stringValue?.contains("seconds") == true)
        #expect(harness.media.precallRequests.isEmpty)
    }

    @Test func aMissingOfferIsInvalidParams() {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "precall", ["seconds": 3]), from: session)
        #expect(output.last?["error"]?["code"]?.intValue == -32602)
    }

    @Test func anAppWithoutItIsRefused() {
        let harness = Harness { config in config.apps[0].precall = nil }
        let (session, output) = harness.connected()
        precall(harness, session)
        #expect(output.last?["error"]?["code"]?.intValue == 1002)
    }

    @Test func theAppsRatePerMinute() {
        let harness = Harness { config in config.apps[0].precall = PrecallPolicy(perMinute: 2) }
        let (first, firstOutput) = harness.connected()
        let (second, secondOutput) = harness.connected()
        precall(harness, first)
        precall(harness, second)
        precall(harness, first, id: 2)
        #expect(firstOutput.last?["error"]?["code"]?.intValue == 1008)
        #expect(firstOutput.last?["error"]?["message"]?.stringValue?.contains("precalls per minute") == true)
        #expect(secondOutput.last?["result"]?["handle"] != nil)
        // A refusal by the media side (one at a time) takes nothing from the rate.
        harness.clock.advance(seconds: 61)
        harness.media.precallError = .limitReached("one precall at a time")
        precall(harness, first, id: 3)
        #expect(firstOutput.last?["error"]?["code"]?.intValue == 1008)
        harness.media.precallError = nil
        precall(harness, first, id: 4)
        precall(harness, second, id: 2)
        #expect(firstOutput.last?["result"]?["handle"] != nil)
        #expect(secondOutput.last?["result"]?["handle"] != nil)
    }

    @Test func itsEventsHaveNoStreamAndTheReportEndsTheHandle() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        precall(harness, session)
        let handle = try #require(output.last?["result"]?["handle"]?.stringValue)
        let sessionID = try #require(session.sessionID)
        harness.media.events.append(.precall(session: sessionID, handle: handle, type: "precallProgress",
                                             data: ["elapsedMs": .int(1000), "rttMs": .null], ends: false))
        harness.media.events.append(.precall(session: sessionID, handle: handle, type: "precallReport",
                                             data: ["quality": .object(["score": .double(4.4), "level": .string("excellent")])],
                                             ends: true))
        harness.manager.drainMediaEvents()
        let events = output.messages.filter { $0["method"]?.stringValue == "streamEvent" }
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0["params"]?["stream"] == nil && $0["params"]?["handle"]?.stringValue == handle })
        #expect(events[0]["params"]?["data"]?["rttMs"] == .null)
        #expect(events[1]["params"]?["data"]?["quality"]?["level"]?.stringValue == "excellent")
        // Ended: the session no longer knows the handle.
        harness.manager.receive(harness.request(9, "stop", ["handle": .string(handle)]), from: session)
        #expect(output.last?["error"]?["code"]?.intValue == 1007)
    }
}
