import SluiceControl
import SluiceJSON
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

@Suite struct SessionManagerTests {
    @Test(arguments: precedenceCases)
    func errorPrecedence(_ testCase: PrecedenceCase) throws {
        let harness = Harness { $0.maxMessageBytes = 512 }
        let (session, output) = testCase.connected ? harness.connected() : harness.open()
        harness.manager.receive(testCase.message, from: session)
        #expect(output.entries.count == 1)
        let reply = try #require(output.last)
        #expect(reply["jsonrpc"] == "2.0")
        #expect(reply["id"] == testCase.id)
        #expect(reply["error"]?["code"]?.intValue == testCase.code)
        let message = try #require(reply["error"]?["message"]?.stringValue)
        #expect(testCase.messageContains.isEmpty || message.contains(testCase.messageContains), "\(message)")
        #expect(output.closes.isEmpty)
    }

    @Test func applicationErrorsCarryTheReason() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "getStats", ["handle": "zzz"]), from: session)
        let error = try #require(output.last?["error"])
        #expect(error["code"] == 1007)
        #expect(error["data"]?["reason"] == "UNKNOWN_HANDLE")
    }

    @Test func notificationsGetNoReplyAndHaveNoEffect() {
        let harness = Harness()
        let (session, output) = harness.open()
        harness.manager.receive(#"{"jsonrpc":"2.0","method":"connect","params":{"appKey":"demo"}}"#, from: session)
        harness.manager.receive(#"{"jsonrpc":"2.0","method":"nosuch"}"#, from: session)
        // Without an id there is no reply even when the envelope is wrong.
        for malformed in [#"{"jsonrpc":"2.0","method":7}"#, #"{"method":"ping"}"#, #"{"jsonrpc":"1.0","method":"ping"}"#,
                          #"{"jsonrpc":"2.0","method":"ping","params":5}"#, #"{"jsonrpc":"2.0","method":"ping","params":[1]}"#] {
            harness.manager.receive(malformed, from: session)
        }
        #expect(output.entries.isEmpty)
        #expect(session.sessionID == nil)
        #expect(harness.manager.connectedSessionCount == 0)

        let (connected, connectedOutput) = harness.connected()
        harness.manager.receive(#"{"jsonrpc":"2.0","method":"publish","params":{"stream":"cam","sdp":"v=0"}}"#, from: connected)
        harness.manager.receive(#"{"jsonrpc":"2.0","method":"disconnect"}"#, from: connected)
        #expect(connectedOutput.entries.isEmpty)
        #expect(harness.media.publishRequests.isEmpty)
        #expect(connected.sessionID == "s1")
    }

    @Test func connectAnswersBeforeEstablished() throws {
        let harness = Harness()
        let (session, output) = harness.open()
        harness.manager.receive(harness.request(1, "connect", ["appKey": "demo", "clientVersion": "1.0", "custom": ["a": 1]]),
                                from: session)
        #expect(output.messages.count == 2)
        let reply = output.messages[0]
        #expect(reply["id"] == 1)
        #expect(reply["result"]?["sessionId"] == "s1")
        #expect(reply["result"]?["serverVersion"] == "9.9.9")
        #expect(reply["result"]?["iceServers"] == [])
        #expect(output.messages[1] == ["jsonrpc": "2.0", "method": "session", "params": ["status": "ESTABLISHED"]])
        #expect(session.sessionID == "s1")
        #expect(harness.manager.connectedSessionCount == 1)
    }

    @Test func unknownAppKeyIsRefusedThenClosedWith4001() throws {
        let harness = Harness()
        let (session, output) = harness.open()
        harness.manager.receive(harness.request(1, "connect", ["appKey": "other"]), from: session)
        #expect(output.entries.count == 2)
        let error = try #require(output.messages.first?["error"])
        #expect(error["code"] == 1001)
        #expect(error["message"] == "Unknown app key")
        #expect(error["data"]?["reason"] == "UNKNOWN_APP_KEY")
        #expect(output.entries.last == .close(4001, "Unknown app key"))
        // Nothing is answered after the close.
        harness.manager.receive(harness.request(2, "ping"), from: session)
        #expect(output.entries.count == 2)
    }

    @Test func publishAnswersBeforePending() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(2, "publish", [
            "stream": "cam-1.a_b~c", "sdp": "v=0\r\n", "constraints": ["video": ["bitrate": 800]], "record": false,
        ]), from: session)
        #expect(output.messages.count == 2)
        let result = try #require(output.messages[0]["result"])
        #expect(result["handle"] == "h1")
        #expect(result["sdp"]?.stringValue?.hasPrefix("v=0") == true)
        #expect(output.messages[1] == ["jsonrpc": "2.0", "method": "streamStatus", "params": [
            "handle": "h1", "stream": "cam-1.a_b~c", "role": "publish", "status": "PENDING",
        ]])
        let request = try #require(harness.media.publishRequests.first)
        #expect(request.session == "s1")
        #expect(request.constraints.video?.bitrateKbps == 800)
        #expect(session.handleRoles == ["h1": .publish])
    }

    @Test func mediaErrorsMapToSection5() throws {
        let cases: [(MediaError, Int64, String, String)] = [
            (.streamNameInUse, 1003, "STREAM_NAME_IN_USE", "Stream name is already in use"),
            (.streamNotFound, 1004, "STREAM_NOT_FOUND", "Stream not found"),
            (.noCommonCodecs, 1005, "NO_COMMON_CODECS", "No common codecs"),
            (.badSDP("line 3: a=rtpmap:x"), 1006, "BAD_SDP", "Malformed or unsupported SDP: line 3: a=rtpmap:x"),
            (.limitReached("players per stream"), 1008, "LIMIT_REACHED", "Limit reached: players per stream"),
            (.constraintsExceedLimits, 1009, "CONSTRAINTS_EXCEED_LIMITS", "Constraints exceed limits"),
            (.wrongRole, 1010, "WRONG_ROLE", "The handle does not support this method"),
        ]
        for (mediaError, code, reason, message) in cases {
            let harness = Harness()
            let (session, output) = harness.connected()
            harness.media.playError = mediaError
            harness.manager.receive(harness.request(3, "play", ["stream": "cam", "sdp": "v=0"]), from: session)
            let error = try #require(output.last?["error"])
            #expect(error["code"]?.intValue == code)
            #expect(error["data"]?["reason"]?.stringValue == reason)
            #expect(error["message"]?.stringValue == message)
            #expect(session.handleRoles.isEmpty)
        }
    }

    @Test func handlesBelongToTheirSession() throws {
        let harness = Harness()
        let (owner, _) = harness.connected()
        let (other, otherOutput) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: owner)
        for method in ["stop", "getStats", "update", "mute"] {
            var params: JSONObject = ["handle": "h1"]
            if method == "update" { params["constraints"] = ["audio": false] }
            if method == "mute" { params["kind"] = "audio" }
            harness.manager.receive(harness.request(2, method, .object(params)), from: other)
            #expect(otherOutput.last?["error"]?["code"] == 1007, "\(method)")
        }
        #expect(harness.media.stoppedHandles.isEmpty)
    }

    @Test func stopForgetsTheHandleAndDeliversTheStatus() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "play", ["stream": "cam", "sdp": "v=0", "wait": true]), from: session)
        #expect(harness.media.playRequests.first?.wait == true)
        output.removeAll()
        harness.manager.receive(harness.request(2, "stop", ["handle": "h1"]), from: session)
        #expect(output.messages.count == 2)
        #expect(output.messages[0]["result"] == [:])
        #expect(output.messages[1]["params"]?["status"] == "STOPPED")
        #expect(output.messages[1]["params"]?["info"] == "Stopped by user")
        #expect(session.handleRoles.isEmpty)
        harness.manager.receive(harness.request(3, "stop", ["handle": "h1"]), from: session)
        #expect(output.last?["error"]?["code"] == 1007)
    }

    @Test func muteUpdateAndStats() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        harness.manager.receive(harness.request(2, "mute", ["handle": "h1", "kind": "video"]), from: session)
        #expect(output.last?["result"] == [:])
        harness.manager.receive(harness.request(3, "update", ["handle": "h1", "constraints": ["video": ["quality": "low"]]]),
                                from: session)
        #expect(output.last?["result"] == [:])
        harness.manager.receive(harness.request(4, "update", ["handle": "h1"]), from: session)
        #expect(output.last?["error"]?["code"] == -32602)
        // The calls reach the media side with their parsed values.
        #expect(harness.media.mutes.count == 1)
        #expect(harness.media.mutes.first.map { $0.1 == .video && $0.2 } == true)
        #expect(harness.media.updates.first?.1.video?.quality == .low)
        // A publisher's unmute of a server mute is refused with 1002.
        harness.media.muteError = .restrictedAccess
        harness.manager.receive(harness.request(7, "unmute", ["handle": "h1", "kind": "video"]), from: session)
        #expect(output.last?["error"]?["code"] == 1002)
        harness.media.muteError = nil
        harness.manager.receive(harness.request(5, "getStats", ["handle": "h1"]), from: session)
        let stats = try #require(output.last?["result"])
        #expect(stats["handle"] == "h1")
        #expect(stats["role"] == "publish")
        #expect(stats["video"]?["packets"] == 10)
        #expect(stats["video"]?["layer"] == 1)
        #expect(stats["video"]?["codec"] == "VP8")
        #expect(stats["audio"]?["width"] == nil)
        harness.manager.receive(harness.request(6, "ping"), from: session)
        #expect(output.last == ["jsonrpc": "2.0", "id": 6, "result": [:]])
    }

    @Test func handleLimit() throws {
        let harness = Harness { $0.maxHandlesPerSession = 1 }
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "a", "sdp": "v=0"]), from: session)
        harness.manager.receive(harness.request(2, "play", ["stream": "b", "sdp": "v=0"]), from: session)
        #expect(output.last?["error"]?["code"] == 1008)
        #expect(output.last?["error"]?["data"]?["reason"] == "LIMIT_REACHED")
        #expect(harness.media.playRequests.isEmpty)
    }

    @Test func sessionLimit() throws {
        let harness = Harness { $0.maxSessions = 1 }
        _ = harness.connected()
        let (session, output) = harness.open()
        harness.manager.receive(harness.request(1, "connect", ["appKey": "demo"]), from: session)
        #expect(output.last?["error"]?["code"] == 1008)
        #expect(output.closes.isEmpty)
    }

    @Test func disconnectRepliesThenCloses1000() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        output.removeAll()
        harness.manager.receive(harness.request(2, "disconnect"), from: session)
        #expect(output.messages.first == ["jsonrpc": "2.0", "id": 2, "result": [:]])
        #expect(output.messages.last?["params"]?["info"] == "Stopped by session disconnect")
        #expect(output.entries.last == .close(1000, "Disconnected"))
        #expect(harness.media.endedSessions == ["s1"])
        #expect(harness.manager.connectedSessionCount == 0)
        // The transport closing afterwards does not end the session twice.
        harness.manager.closed(session)
        #expect(harness.media.endedSessions == ["s1"])
    }

    @Test func socketCloseEndsTheSessionAndDropsItsEvents() throws {
        let harness = Harness()
        let (publisher, publisherOutput) = harness.connected()
        let (player, playerOutput) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: publisher)
        harness.manager.receive(harness.request(1, "play", ["stream": "cam", "sdp": "v=0"]), from: player)
        publisherOutput.removeAll()
        playerOutput.removeAll()
        // What the engine tells the players when their publisher goes.
        harness.media.events.append(.streamStatus(session: "s2", handle: "h2", stream: "cam", role: .play,
                                                  status: .unpublished, info: StatusInfo.publisherStop, ends: true))
        harness.manager.closed(publisher)
        #expect(harness.media.endedSessions == ["s1"])
        #expect(publisherOutput.entries.isEmpty)
        #expect(playerOutput.messages.count == 1)
        #expect(playerOutput.messages[0]["params"]?["info"] == "Stopped by publisher stop")
        #expect(player.handleRoles.isEmpty)
        #expect(harness.manager.openSessionCount == 1)
        #expect(harness.manager.connectedSessionCount == 1)
    }

    @Test func streamEventsReachTheOwner() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.media.events.append(.streamEvent(session: "s1", handle: "h9", stream: "cam", type: "layerChanged",
                                                 by: "server", data: ["width": .int(640), "reason": .string("bandwidth"),
                                                                      "layer": .int(1), "height": .int(360)]))
        harness.media.events.append(.streamEvent(session: "nobody", handle: "h8", stream: "cam", type: "resize",
                                                 by: nil, data: [:]))
        harness.manager.drainMediaEvents()
        #expect(output.entries.count == 1)
        #expect(output.entries.first == .text(
            #"{"jsonrpc":"2.0","method":"streamEvent","params":{"handle":"h9","stream":"cam","type":"layerChanged","by":"server","data":{"height":360,"layer":1,"reason":"bandwidth","width":640}}}"#))
        _ = session
    }

    @Test func shutdownEndsSessionsThenSaysDisconnected() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        let (_, waitingOutput) = harness.open()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        output.removeAll()
        harness.manager.shutdown()
        #expect(output.messages.count == 2)
        #expect(output.messages[0]["params"]?["status"] == "UNPUBLISHED")
        #expect(output.messages[0]["params"]?["info"] == "Stopped by session disconnect")
        #expect(output.messages[1]["method"] == "session")
        #expect(output.messages[1]["params"]?["status"] == "DISCONNECTED")
        #expect(output.closes == [1001])
        #expect(waitingOutput.entries == [.close(1001, "Server shutdown")])
        #expect(harness.media.endedSessions == ["s1"])
    }

    @Test func kickEndsTheSessionFromTheServerSide() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "play", ["stream": "cam", "sdp": "v=0"]), from: session)
        output.removeAll()
        #expect(harness.manager.connectedSessions.map(\.sessionID) == ["s1"])
        #expect(harness.manager.kick("nobody") == false)
        #expect(harness.manager.kick("s1", info: "Kicked"))
        #expect(output.messages.map { $0["params"]?["status"] } == ["STOPPED", "DISCONNECTED"])
        #expect(output.messages.last?["params"]?["info"] == "Kicked")
        #expect(output.closes == [1000])
        #expect(harness.media.endedSessions == ["s1"])
        harness.manager.closed(session)
        #expect(harness.media.endedSessions == ["s1"])
    }

    @Test func oversizedAndBinaryFromTheTransport() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receiveOversized(byteCount: 2_097_152, from: session)
        #expect(output.last?["error"]?["code"] == -32600)
        #expect(output.last?["id"] == .null)
        harness.manager.receiveBinary(from: session)
        #expect(output.last?["error"]?["code"] == -32600)
        harness.manager.receive(harness.request(1, "ping"), from: session)
        #expect(output.last?["result"] == [:])
        #expect(output.closes.isEmpty)
    }

    @Test func rateLimitRefusesThenCloses() throws {
        let harness = Harness { $0.requestsPerSecond = 10 }
        let (session, output) = harness.connected()
        // The connect used one token; nine remain of the burst.
        for id in 1...9 { harness.manager.receive(harness.request(id, "ping"), from: session) }
        #expect(output.messages.allSatisfy { $0["result"] == [:] })
        harness.manager.receive(harness.request(10, "ping"), from: session)
        #expect(output.last?["id"] == 10)
        #expect(output.last?["error"]?["code"] == 1008)
        #expect(output.last?["error"]?["message"] == "Rate limit exceeded")
        // Over the limit, a notification is still not answered; garbage gets id null.
        output.removeAll()
        harness.manager.receive(#"{"jsonrpc":"2.0","method":"ping"}"#, from: session)
        harness.manager.receive(#"{"jsonrpc":"2.0","method":7}"#, from: session)
        #expect(output.entries.isEmpty)
        harness.manager.receive("{", from: session)
        #expect(output.last?["id"] == .null)
        #expect(output.last?["error"]?["code"] == 1008)
        // A second later the bucket is full again.
        harness.clock.advance(seconds: 1)
        output.removeAll()
        harness.manager.receive(harness.request(11, "ping"), from: session)
        #expect(output.last?["result"] == [:])
        // A flood: the 9 tokens left pass, then the 21st refusal (over 2 x 10) closes.
        output.removeAll()
        for id in 12...40 { harness.manager.receive(harness.request(id, "ping"), from: session) }
        #expect(output.closes.isEmpty)
        #expect(output.messages.filter { $0["error"]?["code"] == 1008 }.count == 20)
        for id in 41...50 { harness.manager.receive(harness.request(id, "ping"), from: session) }
        #expect(output.closes == [4008])
        #expect(output.entries.last == .close(4008, "Rate limit exceeded"))
        #expect(output.messages.filter { $0["error"]?["code"] == 1008 }.count == 21)
        #expect(harness.media.endedSessions == ["s1"])
        #expect(harness.manager.connectedSessionCount == 0)
    }
}
