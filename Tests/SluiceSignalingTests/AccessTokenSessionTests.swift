import Foundation
import SluiceControl
import SluiceJSON
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

/// Tokens at `connect`, and their grants and caps at `publish`, `play` and `update`
/// (docs/protocol.md section 6, "Access tokens").
@Suite struct AccessTokenSessionTests {
    static func harness(requireToken: Bool = false, limits: PublishLimits = PublishLimits()) -> Harness {
        Harness { config in
            config.apps = [.init(key: "demo", limits: limits, secrets: [testSecret], requireToken: requireToken),
                           .init(key: "other", secrets: ["the-other-apps-secret-32-bytes-long"])]
        }
    }

    static func token(_ extra: JSONObject = [:], secret: String = testSecret) -> String {
        var claims: JSONObject = ["iss": "demo", "sub": "alice", "exp": JSONValue(Int64(Date().timeIntervalSince1970) + 600),
                                  "publish": ["cam-*"], "play": ["lobby"]]
        for (k, v) in extra { claims[k] = v }
        return forgeToken(claims: .object(claims), secret: secret)
    }

    /// Sends `connect` with `params`; returns the session, its output and the reply.
    static func connect(_ harness: Harness, _ params: JSONValue) -> (RPCSession, RecordingOutput, JSONValue?) {
        let (session, output) = harness.open()
        harness.manager.receive(harness.request(1, "connect", params), from: session)
        let reply = output.messages.first
        return (session, output, reply)
    }

    @Test func tokenAloneConnectsAsItsIssuerWithItsIdentity() throws {
        let harness = Self.harness()
        let (session, output, reply) = Self.connect(harness, ["token": .string(Self.token())])
        let result = try #require(reply?["result"])
        #expect(result["identity"] == "alice")
        #expect(session.appKey == "demo")
        #expect(session.identity == "alice")
        #expect(output.messages.last?["params"]?["status"] == "ESTABLISHED")
        // getStats names the identity of the handle's session.
        output.removeAll()
        harness.manager.receive(harness.request(2, "publish", ["stream": "cam-1", "sdp": "v=0"]), from: session)
        let handle = try #require(output.messages.first?["result"]?["handle"]?.stringValue)
        harness.manager.receive(harness.request(3, "getStats", ["handle": .string(handle)]), from: session)
        #expect(output.messages.first { $0["id"] == 3 }?["result"]?["identity"] == "alice")
    }

    @Test func appKeySessionHasNoIdentityAndEveryGrant() throws {
        let harness = Self.harness()
        let (session, _, reply) = Self.connect(harness, ["appKey": "demo"])
        #expect(reply?["result"]?["identity"] == nil)
        #expect(session.grants == .unrestricted)
    }

    @Test func refusalsAre1011WithTheirReasonAndKeepTheSocket() throws {
        let now = Int64(Date().timeIntervalSince1970)
        let cases: [(String, JSONValue, String)] = [
            ("expired", ["token": .string(Self.token(["exp": JSONValue(now - 600)]))], "TOKEN_EXPIRED"),
            ("not yet valid", ["token": .string(Self.token(["nbf": JSONValue(now + 600)]))], "TOKEN_NOT_YET_VALID"),
            ("bad signature", ["token": .string(Self.token(secret: "not-the-secret-but-32-bytes-long!!"))], "TOKEN_BAD_SIGNATURE"),
            ("unknown iss", ["token": .string(Self.token(["iss": "nobody"]))], "TOKEN_UNKNOWN_ISSUER"),
            ("iss not the key given", ["appKey": "other", "token": .string(Self.token())], "TOKEN_UNKNOWN_ISSUER"),
            ("garbage", ["token": "not a token"], "TOKEN_MALFORMED"),
        ]
        for (name, params, reason) in cases {
            let harness = Self.harness()
            let (session, output, reply) = Self.connect(harness, params)
            #expect(reply?["error"]?["code"] == 1011, "\(name)")
            #expect(reply?["error"]?["data"]?["reason"] == .string(reason), "\(name)")
            #expect(output.closes.isEmpty, "\(name)")
            #expect(session.sessionID == nil, "\(name)")
            // The socket stays open: a fresh token connects.
            harness.manager.receive(harness.request(2, "connect", ["token": .string(Self.token())]), from: session)
            #expect(session.sessionID != nil, "\(name)")
        }
    }

    @Test func appThatRequiresTokensRefusesItsKeyAlone() throws {
        let harness = Self.harness(requireToken: true)
        let (_, output, reply) = Self.connect(harness, ["appKey": "demo"])
        #expect(reply?["error"]?["code"] == 1011)
        #expect(reply?["error"]?["data"]?["reason"] == "TOKEN_REQUIRED")
        #expect(output.closes.isEmpty)
        // An unknown key is still 1001 and closes with 4001; neither key nor token is -32602.
        let (_, unknownOutput, unknown) = Self.connect(harness, ["appKey": "nope"])
        #expect(unknown?["error"]?["code"] == 1001)
        #expect(unknownOutput.closes == [CloseCode.unknownAppKey])
        let (_, _, neither) = Self.connect(harness, ["custom": [:]])
        #expect(neither?["error"]?["code"] == -32602)
        #expect(neither?["error"]?["message"]?.stringValue?.contains("'appKey'") == true)
    }

    @Test func grantsAreEnforcedPerStreamName() throws {
        let harness = Self.harness()
        let (session, output, _) = Self.connect(harness, ["token": .string(Self.token())])
        func code(_ id: Int, _ method: String, _ stream: String, record: Bool = false) -> JSONValue? {
            var params: JSONObject = ["stream": .string(stream), "sdp": "v=0"]
            if record { params["record"] = true }
            harness.manager.receive(harness.request(id, method, .object(params)), from: session)
            let reply = output.messages.first { $0["id"] == JSONValue(id) }
            return reply?["error"]?["code"] ?? (reply?["result"] != nil ? "ok" : nil)
        }
        #expect(code(10, "publish", "cam-1") == "ok")
        #expect(code(11, "publish", "studio") == 1012)
        #expect(code(12, "play", "lobby") == "ok")
        #expect(code(13, "play", "cam-1") == 1012)
        #expect(code(14, "publish", "cam-2", record: true) == 1012)
        let refused = try #require(output.messages.first { $0["id"] == 11 }?["error"])
        #expect(refused["data"]?["reason"] == "NOT_GRANTED")
        #expect(refused["message"]?.stringValue?.contains("publish of 'studio'") == true)
        // Nothing reached the media for the refused ones.
        #expect(harness.media.publishRequests.map(\.stream) == ["cam-1"])
        #expect(harness.media.playRequests.map(\.stream) == ["lobby"])
        // Params come first: a bad name is -32602 even where the grant would refuse.
        #expect(code(15, "publish", "bad name") == -32602)
    }

    @Test func recordGrantAllowsRecording() {
        let harness = Self.harness()
        let (session, output, _) = Self.connect(harness, ["token": .string(Self.token(["record": true]))])
        harness.manager.receive(harness.request(2, "publish", ["stream": "cam-1", "sdp": "v=0", "record": true]), from: session)
        #expect(output.messages.first { $0["id"] == 2 }?["result"] != nil)
    }

    @Test func bitrateCapReachesThePublisherWithOrWithoutConstraints() throws {
        // The token's cap is lower than the app's: the lower counts.
        let harness = Self.harness(limits: PublishLimits(maxBitrateKbps: 2000, maxWidth: 1920))
        let (session, output, _) = Self.connect(harness, ["token": .string(Self.token(["maxBitrateKbps": 500, "maxFps": 15]))])
        harness.manager.receive(harness.request(2, "publish", ["stream": "cam-1", "sdp": "v=0"]), from: session)
        let first = try #require(harness.media.publishRequests.first)
        #expect(first.constraints.video?.maxBitrateKbps == 500)
        #expect(first.caps == PublishCaps(maxWidth: 1920, maxHeight: nil, maxFps: 15, stopWhenExceeded: false))
        // A declared bitrate within the cap is kept; one over it is 1009.
        harness.manager.receive(harness.request(3, "publish", ["stream": "cam-2", "sdp": "v=0",
                                                               "constraints": ["video": ["bitrate": 300]]]), from: session)
        #expect(harness.media.publishRequests.last?.constraints.video?.bitrateKbps == 300)
        #expect(harness.media.publishRequests.last?.constraints.video?.maxBitrateKbps == nil)
        harness.manager.receive(harness.request(4, "publish", ["stream": "cam-3", "sdp": "v=0",
                                                               "constraints": ["video": ["bitrate": 800]]]), from: session)
        #expect(output.messages.first { $0["id"] == 4 }?["error"]?["code"] == 1009)
        // `update` on the publish handle with no bitrate keeps the cap.
        let handle = try #require(output.messages.first { $0["id"] == 2 }?["result"]?["handle"])
        harness.manager.receive(harness.request(5, "update", ["handle": handle, "constraints": ["video": ["width": 640]]]),
                                from: session)
        #expect(harness.media.updates.last?.1.video?.maxBitrateKbps == 500)
    }

    @Test func appCapAppliesToAppKeySessionsToo() throws {
        let harness = Self.harness(limits: PublishLimits(maxBitrateKbps: 700))
        let (session, _) = harness.connected()
        harness.manager.receive(harness.request(2, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        #expect(harness.media.publishRequests.first?.constraints.video?.maxBitrateKbps == 700)
        // Audio-only publishes have no video to cap.
        harness.manager.receive(harness.request(3, "publish", ["stream": "mic", "sdp": "v=0",
                                                               "constraints": ["video": false]]), from: session)
        #expect(harness.media.publishRequests.last?.constraints.video == nil)
    }
}

@Suite struct ModeratorCallTests {
    @Test func adminTokenMutesStreamsOfItsOwnAppOnly() throws {
        let harness = AccessTokenSessionTests.harness()
        let (publisher, _) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam-1", "sdp": "v=0"]), from: publisher)
        let (otherApp, _, _) = AccessTokenSessionTests.connect(harness, ["appKey": "other"])
        harness.manager.receive(harness.request(1, "publish", ["stream": "foreign", "sdp": "v=0"]), from: otherApp)

        let (moderator, output, _) = AccessTokenSessionTests.connect(
            harness, ["token": .string(AccessTokenSessionTests.token(["admin": true]))])
        func reply(_ id: Int, _ method: String, _ params: JSONValue) -> JSONValue? {
            harness.manager.receive(harness.request(id, method, params), from: moderator)
            return output.messages.first { $0["id"] == JSONValue(id) }
        }
        #expect(reply(2, "muteStream", ["stream": "cam-1", "kind": "video"])?["result"] == [:])
        #expect(reply(3, "unmuteStream", ["stream": "cam-1", "kind": "video"])?["result"] == [:])
        #expect(harness.media.serverMutes.map { "\($0.0) \($0.1.rawValue) \($0.2)" } == ["cam-1 video true", "cam-1 video false"])
        // Another app's stream and a name nobody publishes are both 1004; bad params are -32602.
        #expect(reply(4, "muteStream", ["stream": "foreign", "kind": "audio"])?["error"]?["code"] == 1004)
        #expect(reply(5, "muteStream", ["stream": "nobody", "kind": "audio"])?["error"]?["code"] == 1004)
        #expect(reply(6, "muteStream", ["stream": "cam-1", "kind": "both"])?["error"]?["code"] == -32602)
        #expect(harness.media.serverMutes.count == 2)
    }

    @Test func withoutTheAdminGrantItIsNotGranted() throws {
        let harness = AccessTokenSessionTests.harness()
        let (publisher, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam-1", "sdp": "v=0"]), from: publisher)
        // An app-key session has every stream grant but not admin.
        harness.manager.receive(harness.request(2, "muteStream", ["stream": "cam-1", "kind": "audio"]), from: publisher)
        let error = try #require(output.messages.first { $0["id"] == 2 }?["error"])
        #expect(error["code"] == 1012)
        #expect(error["data"]?["reason"] == "NOT_GRANTED")
        let (plain, plainOutput, _) = AccessTokenSessionTests.connect(harness, ["token": .string(AccessTokenSessionTests.token())])
        harness.manager.receive(harness.request(3, "muteStream", ["stream": "cam-1", "kind": "audio"]), from: plain)
        #expect(plainOutput.messages.first { $0["id"] == 3 }?["error"]?["code"] == 1012)
        #expect(harness.media.serverMutes.isEmpty)
    }
}
