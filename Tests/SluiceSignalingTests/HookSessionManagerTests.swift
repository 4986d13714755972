import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing
import SluiceLog

/// A session manager with two apps: "demo" without hooks and "hooked" with them, behind a
/// fake hook transport.
final class HookHarness {
    static let secret = "s3cret"
    static let url = "http://127.0.0.1:9/cb/"
    static let now: Int64 = 1_700_000_000_123

    let media = FakeMediaControl()
    let transport = FakeHookTransport()
    let manager: SessionManager

    init(maxSessions: Int = 1000) {
        var config = SignalingConfig(apps: [
            .init(key: "demo"),
            .init(key: "hooked", hooks: HookSettings(url: HookHarness.url, secret: HookHarness.secret, timeoutMs: 500)),
        ], serverVersion: "9.9.9")
        config.maxSessions = maxSessions
        config.requestsPerSecond = 0
        var counter = 0
        manager = SessionManager(config: config, media: media, log: Log(level: .error),
                                 makeSessionID: { counter += 1; return "s\(counter)" },
                                 hookTransport: transport, wallClockMillis: { HookHarness.now })
    }

    func open() -> (RPCSession, RecordingOutput) {
        let output = RecordingOutput()
        return (manager.open(output: output), output)
    }

    func send(_ session: RPCSession, _ id: Int, _ method: String, _ params: JSONValue? = nil) {
        var object: JSONObject = ["jsonrpc": "2.0", "id": JSONValue(id), "method": .string(method)]
        if let params { object["params"] = params }
        manager.receive(JSONValue.object(object).serialized(), from: session)
    }

    /// Completes the oldest pending hook of `event` and runs what the service thread would.
    func answer(_ event: HookEvent, _ outcome: HookOutcome) {
        #expect(transport.complete(event, with: outcome), "no pending \(event.rawValue) hook")
        manager.drainHookCompletions()
    }

    /// A session of "hooked" whose connect the backend allowed; output cleared.
    func connectedHooked(custom: JSONValue? = nil) -> (RPCSession, RecordingOutput) {
        let (session, output) = open()
        var params: JSONObject = ["appKey": "hooked"]
        if let custom { params["custom"] = custom }
        send(session, 0, "connect", .object(params))
        answer(.connect, .status(200))
        output.removeAll()
        return (session, output)
    }
}

extension RecordingOutput {
    /// "result 1", "error 1 1002", "streamStatus PENDING", "session ESTABLISHED": one word per message.
    var summary: [String] {
        entries.map { entry in
            switch entry {
            case .close(let code, _):
                return "close \(code)"
            case .text(let text):
                guard let message = try? JSONValue.parse(text) else { return "?" }
                if let error = message["error"] {
                    return "error \(message["id"]?.intValue ?? -1) \(error["code"]?.intValue ?? 0)"
                }
                if message["result"] != nil { return "result \(message["id"]?.intValue ?? -1)" }
                let method = message["method"]?.stringValue ?? "?"
                return "\(method) \(message["params"]?["status"]?.stringValue ?? message["params"]?["type"]?.stringValue ?? "")"
            }
        }
    }
}

@Suite struct HookSessionManagerTests {
    @Test func connectWaitsForTheHookAndIsSigned() throws {
        let harness = HookHarness()
        let (session, output) = harness.open()
        harness.send(session, 1, "connect", ["appKey": "hooked", "custom": ["user": "ann", "room": 7]])
        #expect(output.entries.isEmpty, "no reply before the hook answers")
        #expect(session.sessionID == nil)

        let request = try #require(harness.transport.requests.first)
        #expect(request.event == .connect)
        #expect(request.url == "http://127.0.0.1:9/cb/connect")
        #expect(request.timeoutMs == 500)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("X-Sluice-Signature") == HookSignature.header(secret: HookHarness.secret, body: request.body))
        let body = try JSONValue.parse(request.body)
        #expect(body == ["event": "connect", "appKey": "hooked", "sessionId": "s1", "seq": 1,
                         "timestamp": JSONValue(HookHarness.now), "custom": ["user": "ann", "room": 7]])

        harness.answer(.connect, .status(204))
        #expect(output.summary == ["result 1", "session ESTABLISHED"])
        #expect(output.messages.first?["result"]?["sessionId"] == "s1")
        #expect(session.sessionID == "s1")
    }

    @Test(arguments: [HookOutcome.status(403), .status(500), .status(302), .timedOut, .failed("connection refused")])
    func refusedConnect(_ outcome: HookOutcome) throws {
        let harness = HookHarness()
        let (session, output) = harness.open()
        harness.send(session, 1, "connect", ["appKey": "hooked"])
        harness.answer(.connect, outcome)
        #expect(output.summary == ["error 1 1002"])
        let error = try #require(output.last?["error"])
        #expect(error["message"] == "Restricted access")
        #expect(error["data"]?["reason"] == "RESTRICTED_ACCESS")
        #expect(session.sessionID == nil)
        #expect(output.closes.isEmpty, "a refused connect leaves the socket open")
        #expect(harness.manager.connectedSessionCount == 0)
        // The session may try again; a later ping waits for nothing.
        harness.send(session, 2, "ping")
        #expect(output.summary == ["error 1 1002", "error 2 1000"])
    }

    @Test func appWithoutHooksAnswersAtOnce() {
        let harness = HookHarness()
        let (session, output) = harness.open()
        harness.send(session, 1, "connect", ["appKey": "demo"])
        #expect(output.summary == ["result 1", "session ESTABLISHED"])
        harness.send(session, 2, "publish", ["stream": "cam", "sdp": "v=0"])
        #expect(output.summary.suffix(2) == ["result 2", "streamStatus PENDING"])
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func publishWaitsThenAnswersBeforeItsStatus() throws {
        let harness = HookHarness()
        let (session, output) = harness.connectedHooked(custom: ["user": "ann"])
        harness.send(session, 2, "publish", ["stream": "cam", "sdp": "v=0", "constraints": ["audio": false],
                                             "custom": ["title": "live"]])
        #expect(output.entries.isEmpty)
        #expect(harness.media.publishRequests.isEmpty, "nothing is created before the hook allows it")
        let body = try #require(harness.transport.bodies(.publishStream).first)
        #expect(body == ["event": "publishStream", "appKey": "hooked", "sessionId": "s1", "seq": 2,
                         "timestamp": JSONValue(HookHarness.now), "stream": "cam", "role": "publish",
                         "constraints": ["audio": false], "record": false, "custom": ["title": "live"]])

        harness.answer(.publishStream, .status(200))
        #expect(output.summary == ["result 2", "streamStatus PENDING"])
        #expect(harness.media.publishRequests.map(\.stream) == ["cam"])
        #expect(harness.media.publishRequests.first?.constraints.audio == false)

        // streamStatus hook: the handle's own custom.
        let status = try #require(harness.transport.bodies(.streamStatus).first)
        #expect(status["handle"] == "h1")
        #expect(status["status"] == "PENDING")
        #expect(status["role"] == "publish")
        #expect(status["stream"] == "cam")
        #expect(status["seq"] == 3)
        #expect(status["custom"] == ["title": "live"])
    }

    @Test func refusedPublishCreatesNoHandle() throws {
        let harness = HookHarness()
        let (session, output) = harness.connectedHooked()
        harness.send(session, 2, "publish", ["stream": "cam", "sdp": "v=0"])
        harness.answer(.publishStream, .status(403))
        #expect(output.summary == ["error 2 1002"])
        #expect(harness.media.publishRequests.isEmpty)
        #expect(session.handles.isEmpty)
        #expect(!harness.transport.events.contains(.streamStatus))
    }

    @Test func playHookCarriesThePlayFields() throws {
        let harness = HookHarness()
        let (session, output) = harness.connectedHooked(custom: ["user": "bob"])
        harness.send(session, 2, "play", ["stream": "cam", "sdp": "v=0", "wait": true,
                                          "constraints": ["video": ["quality": "low"]]])
        let body = try #require(harness.transport.bodies(.playStream).first)
        #expect(body["role"] == "play")
        #expect(body["wait"] == true)
        #expect(body["constraints"] == ["video": ["quality": "low"]])
        #expect(body["custom"] == ["user": "bob"], "without its own custom, the session's")
        harness.answer(.playStream, .status(200))
        #expect(output.summary == ["result 2", "streamStatus PENDING"])
        #expect(harness.media.playRequests.first?.wait == true)
    }

    @Test func laterRequestsOfTheSessionWaitInOrder() {
        let harness = HookHarness()
        let (session, output) = harness.connectedHooked()
        harness.send(session, 2, "publish", ["stream": "cam", "sdp": "v=0"])
        harness.send(session, 3, "ping")
        harness.send(session, 4, "stop", ["handle": "h1"])
        harness.manager.receive("{bad json", from: session)
        harness.send(session, 5, "play", ["stream": "cam", "sdp": "v=0"])
        harness.send(session, 6, "ping")
        #expect(output.entries.isEmpty, "everything waits behind the parked publish")

        harness.answer(.publishStream, .status(200))
        // The publish, its status, then the backlog up to the play, which parks again.
        #expect(output.summary == ["result 2", "streamStatus PENDING", "result 3", "result 4", "streamStatus UNPUBLISHED",
                                   "error -1 -32700"])
        harness.answer(.playStream, .status(200))
        #expect(output.summary.suffix(3) == ["result 5", "streamStatus PENDING", "result 6"])
    }

    @Test func otherSessionsAreNotHeldUp() {
        let harness = HookHarness()
        let (stalled, stalledOutput) = harness.open()
        harness.send(stalled, 1, "connect", ["appKey": "hooked"])

        // Another app's session does everything while the first waits.
        let (other, otherOutput) = harness.open()
        harness.send(other, 1, "connect", ["appKey": "demo"])
        harness.send(other, 2, "publish", ["stream": "cam", "sdp": "v=0"])
        harness.send(other, 3, "ping")
        #expect(otherOutput.summary == ["result 1", "session ESTABLISHED", "result 2", "streamStatus PENDING", "result 3"])

        // A session of the same app has its own hook, answered first: it goes on, the first still waits.
        let (second, secondOutput) = harness.open()
        harness.send(second, 1, "connect", ["appKey": "hooked"])
        #expect(harness.transport.pending.count == 2)
        #expect(harness.transport.complete(.connect, sessionID: "s3", with: .status(200)))
        harness.manager.drainHookCompletions()
        #expect(secondOutput.summary == ["result 1", "session ESTABLISHED"])
        #expect(stalledOutput.entries.isEmpty)
        #expect(harness.manager.parkedRequestCount == 1)

        harness.answer(.connect, .status(200))
        #expect(stalledOutput.summary == ["result 1", "session ESTABLISHED"])
        #expect(stalled.sessionID == "s1")
    }

    @Test func closeWhileParkedDropsTheRequest() {
        let harness = HookHarness()
        let (session, output) = harness.connectedHooked()
        harness.send(session, 2, "publish", ["stream": "cam", "sdp": "v=0"])
        harness.send(session, 3, "ping")
        #expect(harness.manager.parkedRequestCount == 1)
        harness.manager.closed(session)
        #expect(harness.manager.parkedRequestCount == 0)

        // The backend allows it after the session went: nothing is created, nothing is sent.
        harness.answer(.publishStream, .status(200))
        #expect(harness.media.publishRequests.isEmpty)
        #expect(output.entries.isEmpty)
        harness.transport.settleNotifications()
        #expect(harness.transport.events == [.connect, .publishStream, .disconnect])
    }

    @Test func closeWhileConnectIsParkedSendsNoDisconnect() {
        let harness = HookHarness()
        let (session, output) = harness.open()
        harness.send(session, 1, "connect", ["appKey": "hooked"])
        harness.manager.closed(session)
        harness.answer(.connect, .status(200))
        #expect(output.entries.isEmpty)
        #expect(harness.manager.connectedSessionCount == 0)
        harness.transport.settleNotifications()
        #expect(harness.transport.events == [.connect])
    }

    @Test func disconnectComesLastWithIncreasingSeq() throws {
        let harness = HookHarness()
        let (session, _) = harness.connectedHooked(custom: ["user": "ann"])
        harness.send(session, 2, "publish", ["stream": "cam", "sdp": "v=0", "custom": ["title": "live"]])
        harness.answer(.publishStream, .status(200))
        harness.send(session, 3, "play", ["stream": "other", "sdp": "v=0"])
        harness.answer(.playStream, .status(200))
        harness.manager.closed(session)
        harness.transport.settleNotifications()

        #expect(harness.transport.events == [.connect, .publishStream, .streamStatus, .playStream, .streamStatus,
                                             .streamStatus, .streamStatus, .disconnect])
        let bodies = harness.transport.bodies()
        #expect(bodies.map { $0["seq"]?.intValue ?? 0 } == Array(1...8))
        #expect(bodies.allSatisfy { $0["sessionId"] == "s1" && $0["appKey"] == "hooked" })
        let endings = bodies.filter { $0["event"] == "streamStatus" }.suffix(2)
        #expect(endings.map { $0["status"]?.stringValue ?? "" } == ["UNPUBLISHED", "STOPPED"])
        #expect(endings.allSatisfy { $0["info"] == "Stopped by session disconnect" })
        #expect(endings.map { $0["custom"] } == [["title": "live"], ["user": "ann"]])
        let disconnect = try #require(bodies.last)
        #expect(disconnect == ["event": "disconnect", "appKey": "hooked", "sessionId": "s1", "seq": 8,
                               "timestamp": JSONValue(HookHarness.now), "custom": ["user": "ann"]])
        for request in harness.transport.requests {
            #expect(request.header("X-Sluice-Signature") == HookSignature.header(secret: HookHarness.secret, body: request.body))
        }
    }

    @Test func kickAndDisconnectSendTheDisconnectHook() {
        let harness = HookHarness()
        let (first, _) = harness.connectedHooked()
        let (second, _) = harness.connectedHooked()
        #expect(harness.manager.kick("s1"))
        harness.send(second, 5, "disconnect")
        harness.manager.closed(first)
        harness.manager.closed(second)
        harness.transport.settleNotifications()
        let disconnects = harness.transport.bodies(.disconnect).map { $0["sessionId"]?.stringValue ?? "" }
        #expect(disconnects == ["s1", "s2"], "one each, never twice")
    }

    @Test func onlyMuteAndLayerEventsReachTheHooks() {
        let harness = HookHarness()
        let (session, output) = harness.connectedHooked()
        harness.send(session, 2, "publish", ["stream": "cam", "sdp": "v=0"])
        harness.answer(.publishStream, .status(200))
        for type in ["audioMuted", "connectionQuality", "resize", "layerChanged", "videoUnmuted"] {
            harness.media.events.append(.streamEvent(session: "s1", handle: "h1", stream: "cam", type: type,
                                                     by: "publisher", data: ["layer": .int(1)]))
        }
        harness.manager.drainMediaEvents()
        harness.transport.settleNotifications()
        let events = harness.transport.bodies(.streamEvent)
        #expect(events.map { $0["type"]?.stringValue ?? "" } == ["audioMuted", "layerChanged", "videoUnmuted"])
        #expect(events.first?["by"] == "publisher")
        #expect(events.first?["data"] == ["layer": 1])
        #expect(events.first?["handle"] == "h1")
        // The client hears of all five.
        #expect(output.summary.filter { $0.hasPrefix("streamEvent") }.count == 5)
    }

    @Test func backlogIsBounded() {
        let harness = HookHarness()
        let (session, output) = harness.connectedHooked()
        harness.send(session, 1, "publish", ["stream": "cam", "sdp": "v=0"])
        for id in 2...(SessionHookState.backlogLimit + 3) { harness.send(session, id, "ping") }
        // The ones past the limit are refused at once.
        #expect(output.summary == ["error \(SessionHookState.backlogLimit + 2) 1008", "error \(SessionHookState.backlogLimit + 3) 1008"])
        harness.answer(.publishStream, .status(200))
        #expect(output.summary.filter { $0.hasPrefix("result") }.count == 1 + SessionHookState.backlogLimit)
    }

    @Test func sessionLimitIsCheckedAgainAfterTheHook() {
        let harness = HookHarness(maxSessions: 1)
        let (first, firstOutput) = harness.open()
        harness.send(first, 1, "connect", ["appKey": "hooked"])
        let (second, secondOutput) = harness.open()
        harness.send(second, 1, "connect", ["appKey": "demo"])
        #expect(secondOutput.summary == ["result 1", "session ESTABLISHED"])
        harness.answer(.connect, .status(200))
        #expect(firstOutput.summary == ["error 1 1008"])
    }
}
