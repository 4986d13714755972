import Foundation
import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceMedia
import SluiceSignaling
import SluiceVocabulary
import Testing
@testable import SluiceServer

/// The admin API's streams and sessions: their views and stats, server mutes, deleting a
/// stream and kicking a session (`AdminFixture` is in AdminAPITests.swift).
@Suite(.serialized) struct AdminAPIStreamTests {
    @Test func streamViewsShowPublisherPlayersAndMuteState() throws {
        let fixture = try AdminFixture()
        let (publisherSession, publisherOutput, publisherID) = try fixture.connect()
        let publisher = try fixture.call("publish", stream: "cam1", session: publisherSession, output: publisherOutput, id: 2)
        let (playerSession, playerOutput, playerID) = try fixture.connect()
        let player = try fixture.call("play", stream: "cam1", session: playerSession, output: playerOutput, id: 2)

        // A handle's figures appear when its worker publishes them (a tick, once a second).
        // Compare the two views only after that, so both show the same snapshot: with no media
        // flowing, later ticks publish the same figures.
        let published = { (view: JSONValue) in view["publisher"]?["video"] != nil && view["players"]?[0]?["video"] != nil }
        var waited = 0
        while waited < 100, !published(try json(fixture.request("GET", "/api/v1/streams/cam1"))) {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 1
        }
        let list = try json(fixture.request("GET", "/api/v1/streams"))
        let streams = try #require(list["streams"]?.arrayValue)
        #expect(streams.count == 1)
        let one = try json(fixture.request("GET", "/api/v1/streams/cam1"))
        #expect(published(one), "no figures published within 5 s: \(one)")
        #expect(streams.first == one)
        #expect(one["name"] == "cam1")
        #expect(one["appKey"] == "demo")
        #expect(one["publisher"]?["handle"] == .string(publisher))
        #expect(one["publisher"]?["session"] == .string(publisherID))
        #expect(one["publisher"]?["role"] == "publish")
        #expect(one["publisher"]?["stream"] == "cam1")
        let players = try #require(one["players"]?.arrayValue)
        #expect(players.count == 1)
        #expect(players.first?["handle"] == .string(player))
        #expect(players.first?["session"] == .string(playerID))
        #expect(players.first?["role"] == "play")
        let unmuted: JSONValue = ["muted": false, "byPublisher": false, "byServer": false]
        #expect(one["muted"] == ["audio": unmuted, "video": unmuted])
    }

    @Test func kindStatsUseTheSection3Names() {
        var video = KindStats()
        video.packets = 10
        video.bytes = 12_000
        video.bitrateKbps = 800.5
        video.width = 640
        video.height = 480
        video.keyFrames = 2
        video.layer = 1
        video.codec = "VP8"
        let json = MediaJSON.kindStats(video, video: true)
        let keys = Set(json.objectValue?.keys ?? [])
        #expect(keys == ["packets", "bytes", "bitrate", "packetsLost", "fractionLost", "jitterMs", "rttMs", "nacks",
                         "plis", "firs", "fps", "width", "height", "layer", "keyFrames", "layers", "codec"])
        #expect(json["bitrate"] == 800.5)
        #expect(json["bytes"] == 12_000)
        let audio = MediaJSON.kindStats(KindStats(), video: false)
        #expect(audio["width"] == nil)
        #expect(audio["keyFrames"] == nil)
        #expect(audio["codec"] == nil)
        #expect(audio["packets"] == 0)
    }

    @Test func serverMuteTellsEveryoneAndOutranksThePublisher() throws {
        let fixture = try AdminFixture()
        let (publisherSession, publisherOutput, _) = try fixture.connect()
        let publisher = try fixture.call("publish", stream: "cam2", session: publisherSession, output: publisherOutput, id: 2)
        let (playerSession, playerOutput, _) = try fixture.connect()
        _ = try fixture.call("play", stream: "cam2", session: playerSession, output: playerOutput, id: 2)

        let muted = fixture.request("POST", "/api/v1/streams/cam2/mute", contentType: "application/json; charset=utf-8",
                                    body: #"{"kind":"video"}"#)
        #expect(muted.status == 200)
        #expect(try json(muted) == [:])
        fixture.sessions.drainMediaEvents()
        for output in [publisherOutput, playerOutput] {
            let events = output.notifications("streamEvent")
            #expect(events.count == 1)
            #expect(events.last?["params"]?["type"] == "videoMuted")
            #expect(events.last?["params"]?["by"] == "server")
        }
        let view = try json(fixture.request("GET", "/api/v1/streams/cam2"))
        #expect(view["muted"]?["video"] == ["muted": true, "byPublisher": false, "byServer": true])
        #expect(view["muted"]?["audio"]?["muted"] == false)

        // The publisher cannot lift it.
        let refused = fixture.rpc("unmute", ["handle": .string(publisher), "kind": "video"],
                                  session: publisherSession, output: publisherOutput, id: 3)
        #expect(refused?["error"]?["code"] == 1002)

        // The same mute again changes nothing and tells no one.
        #expect(fixture.request("POST", "/api/v1/streams/cam2/mute", body: #"{"kind":"video"}"#).status == 200)
        fixture.sessions.drainMediaEvents()
        #expect(playerOutput.notifications("streamEvent").count == 1)

        #expect(fixture.request("POST", "/api/v1/streams/cam2/unmute", contentType: "application/json",
                                body: #"{"kind":"video"}"#).status == 200)
        fixture.sessions.drainMediaEvents()
        for output in [publisherOutput, playerOutput] {
            #expect(output.notifications("streamEvent").last?["params"]?["type"] == "videoUnmuted")
            #expect(output.notifications("streamEvent").last?["params"]?["by"] == "server")
        }
        #expect(try json(fixture.request("GET", "/api/v1/streams/cam2"))["muted"]?["video"]?["muted"] == false)
    }

    @Test func muteRequestsAreValidated() throws {
        let fixture = try AdminFixture()
        let (session, output, _) = try fixture.connect()
        _ = try fixture.call("publish", stream: "cam3", session: session, output: output, id: 2)
        let path = "/api/v1/streams/cam3/mute"

        let wrongType = fixture.request("POST", path, contentType: "text/plain", body: #"{"kind":"video"}"#)
        #expect(wrongType.status == 415)
        #expect(try json(wrongType)["error"]?["reason"] == "UNSUPPORTED_MEDIA_TYPE")

        let cases: [(String, String)] = [
            ("", "JSON object"),
            ("{", "not valid JSON"),
            (#"["video"]"#, "an array"),
            ("{}", "'kind' is required"),
            (#"{"kind":"data"}"#, "'kind' must be"),
            (#"{"kind":1}"#, "'kind' must be"),
            (#"{"kind":"VIDEO"}"#, "'kind' must be"),
        ]
        for (body, words) in cases {
            let response = fixture.request("POST", path, contentType: "application/json", body: body)
            #expect(response.status == 400, "body \(body)")
            let error = try json(response)["error"]
            #expect(error?["reason"] == "BAD_REQUEST")
            #expect(error?["message"]?.stringValue?.contains(words) == true, "body \(body): \(String(describing: error))")
        }
        // A valid body for an unknown stream; a body is checked before the stream.
        #expect(fixture.request("POST", "/api/v1/streams/other/mute", body: #"{"kind":"audio"}"#).status == 404)
        #expect(fixture.request("POST", "/api/v1/streams/other/mute", body: "{}").status == 400)
        // No Content-Type at all is accepted.
        #expect(fixture.request("POST", path, body: #"{"kind":"audio","extra":true}"#).status == 200)
    }

    @Test func deleteStreamTerminatesThePublisher() throws {
        let fixture = try AdminFixture()
        let (publisherSession, publisherOutput, _) = try fixture.connect()
        let publisher = try fixture.call("publish", stream: "cam4", session: publisherSession, output: publisherOutput, id: 2)
        let (playerSession, playerOutput, _) = try fixture.connect()
        let player = try fixture.call("play", stream: "cam4", session: playerSession, output: playerOutput, id: 2)

        let deleted = fixture.request("DELETE", "/api/v1/streams/cam4")
        #expect(deleted.status == 200)
        #expect(try json(deleted) == [:])
        fixture.sessions.drainMediaEvents()
        let publisherEnd = publisherOutput.notifications("streamStatus").last?["params"]
        #expect(publisherEnd?["handle"] == .string(publisher))
        #expect(publisherEnd?["status"] == "UNPUBLISHED")
        #expect(publisherEnd?["info"] == "Stopped by rest /terminate")
        let playerEnd = playerOutput.notifications("streamStatus").last?["params"]
        #expect(playerEnd?["handle"] == .string(player))
        #expect(playerEnd?["status"] == "UNPUBLISHED")
        #expect(playerEnd?["info"] == "Stopped by publisher stop")

        #expect(fixture.request("GET", "/api/v1/streams/cam4").status == 404)
        #expect(fixture.request("DELETE", "/api/v1/streams/cam4").status == 404)
        #expect(try json(fixture.request("GET", "/api/v1/streams")) == ["streams": []])
    }

    @Test func sessionsAreListedAndKicked() throws {
        let fixture = try AdminFixture(appKeys: ["demo", "other"])
        let (publisherSession, publisherOutput, publisherID) = try fixture.connect()
        let publisher = try fixture.call("publish", stream: "cam5", session: publisherSession, output: publisherOutput, id: 2)
        let (_, _, otherID) = try fixture.connect(appKey: "other")

        let list = try json(fixture.request("GET", "/api/v1/sessions"))
        let sessions = try #require(list["sessions"]?.arrayValue)
        #expect(sessions.count == 2)
        #expect(sessions.first == ["id": .string(publisherID), "appKey": "demo",
                                   "handles": [["handle": .string(publisher), "role": "publish", "stream": "cam5"]]])
        #expect(sessions.last == ["id": .string(otherID), "appKey": "other", "handles": []])

        #expect(fixture.request("DELETE", "/api/v1/sessions/\(publisherID)").status == 200)
        #expect(publisherOutput.closes == [1000])
        let ended = publisherOutput.notifications("streamStatus").last?["params"]
        #expect(ended?["status"] == "UNPUBLISHED")
        #expect(ended?["info"] == "Stopped by session disconnect")
        #expect(publisherOutput.notifications("session").last?["params"]?["status"] == "DISCONNECTED")

        let after = try json(fixture.request("GET", "/api/v1/sessions"))
        #expect(after["sessions"]?.arrayValue?.map { $0["id"] } == [.string(otherID)])
        #expect(fixture.request("DELETE", "/api/v1/sessions/\(publisherID)").status == 404)
        #expect(fixture.request("GET", "/api/v1/streams/cam5").status == 404)
    }
}
