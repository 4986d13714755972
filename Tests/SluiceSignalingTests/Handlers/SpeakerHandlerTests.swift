import SluiceControl
import SluiceJSON
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

/// `speakers` and its notifications with levels fed as the engine and the cluster give them:
/// who follows what, the floor's hand-over, `activeSpeakers` at most every 200 ms, a muted
/// speaker out, a prefix, another node's streams, and what is refused.
@Suite struct SpeakerHandlerTests {
    private let fixture = HandlerFixture()

    private func follow(_ handler: SpeakerHandler, _ params: JSONObject, session id: SessionID = "f1",
                        grants: AccessGrants = .unrestricted) throws -> RecordingOutput {
        let (session, output) = fixture.connected(id, grants: grants)
        _ = try handler.speakers(RPCParams(params), session: session, sessionID: id)
        return output
    }

    /// `seconds` of levels, a window (100 ms) at a time, each fed and evaluated.
    private func run(_ handler: SpeakerHandler, seconds: Double, _ levels: [String: Double], muted: Set<String> = [],
                     remote: [String: Double] = [:]) {
        for _ in 0..<Int(seconds * 10) {
            for (stream, level) in levels {
                handler.note(.audioLevel(stream: stream, level: (level, level), muted: muted.contains(stream)))
            }
            if !remote.isEmpty {
                handler.remoteInbox.put(remote.map { SpeakerLevel(stream: $0.key, level: $0.value, voice: $0.value, muted: false) })
            }
            fixture.clock.advance(seconds: 0.1)
            handler.tick()
        }
    }

    private func dominants(_ output: RecordingOutput) -> [JSONValue] {
        output.messages.filter { $0["method"] == "dominantSpeaker" }.map { $0["params"]?["name"] ?? "missing" }
    }

    private func actives(_ output: RecordingOutput) -> [[String]] {
        output.messages.filter { $0["method"] == "activeSpeakers" }.map { message in
            (message["params"]?["speakers"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        }
    }

    @Test func aHandOverIsToldOnceAfterTheHold() throws {
        let handler = SpeakerHandler(table: fixture.table)
        let output = try follow(handler, ["names": ["a", "b"]])
        run(handler, seconds: 2, ["a": -20, "b": -127])
        run(handler, seconds: 2, ["a": -127, "b": -22])
        #expect(dominants(output) == ["a", "b"])
        #expect(actives(output).first == ["a"])
        #expect(actives(output).last == ["b"])
        let levels = output.messages.first { $0["method"] == "activeSpeakers" }?["params"]?["speakers"]?[0]?["level"]
        #expect(levels?.doubleValue == -20)
    }

    /// A stream outside the set, a cough (300 ms) and an unfollowed session hear nothing.
    @Test func onlyTheSetCountsAndACoughDoesNotTakeTheFloor() throws {
        let handler = SpeakerHandler(table: fixture.table)
        let output = try follow(handler, ["names": ["a", "b"]])
        let (_, stranger) = fixture.connected("f2")
        run(handler, seconds: 2, ["a": -20, "c": -10])
        run(handler, seconds: 0.3, ["a": -20, "b": -5])
        run(handler, seconds: 2, ["a": -20, "b": -127])
        #expect(dominants(output) == ["a"])
        #expect(actives(output).allSatisfy { !$0.contains("c") })
        #expect(stranger.messages.isEmpty)
    }

    @Test func aMutedSpeakerDropsOut() throws {
        let handler = SpeakerHandler(table: fixture.table)
        let output = try follow(handler, ["prefix": "room1-"])
        run(handler, seconds: 2, ["room1-a": -20, "room2-x": -10])
        run(handler, seconds: 1, ["room1-a": -20], muted: ["room1-a"])
        #expect(dominants(output) == ["room1-a", .null])
        #expect(actives(output) == [["room1-a"], []])
    }

    /// `activeSpeakers` at most every 200 ms however fast the set changes.
    @Test func activeSpeakersComeAtMostEvery200ms() throws {
        let handler = SpeakerHandler(table: fixture.table)
        let output = try follow(handler, ["prefix": "p"])
        for i in 0..<20 { run(handler, seconds: 0.1, i % 2 == 0 ? ["p1": -20, "p2": -127] : ["p1": -127, "p2": -20]) }
        #expect(actives(output).count <= 10)
        #expect(actives(output).count >= 2)
    }

    /// Another node's streams count like this node's.
    @Test func anotherNodesStreamsCount() throws {
        let handler = SpeakerHandler(table: fixture.table)
        let output = try follow(handler, ["prefix": "r-"])
        run(handler, seconds: 2, [:], remote: ["r-far": -25, "x-far": -10])
        #expect(dominants(output) == ["r-far"])
        // The node's record went (its TTL): so does the speaker.
        handler.remoteInbox.put([])
        run(handler, seconds: 0.5, [:])
        #expect(actives(output).last == [])
    }

    /// A token's play grant bounds what a session may follow: a name it may not play is
    /// refused, and a prefix yields only names it may play.
    @Test func grantsBoundTheSet() throws {
        let handler = SpeakerHandler(table: fixture.table)
        var grants = AccessGrants.unrestricted
        grants.play = [StreamNamePattern("room-a*")]
        #expect(rpcError { _ = try self.follow(handler, ["names": ["room-b"]], grants: grants) }?.code == 1012)
        let output = try follow(handler, ["prefix": "room-"], session: "f3", grants: grants)
        run(handler, seconds: 2, ["room-a1": -30, "room-b1": -10])
        #expect(dominants(output) == ["room-a1"])
    }

    @Test(arguments: [
        (["names": "a"], "'names'"), (["names": [1]], "'names[0]'"), (["names": ["a b"]], "'names[0]'"),
        (["prefix": 5], "'prefix'"), (["prefix": ""], "'prefix'"),
        (["names": .array(Array(repeating: "a", count: 101))], "'names'"),
    ] as [(JSONObject, String)])
    func badParamsAreRefusedByName(_ params: JSONObject, _ field: String) {
        let handler = SpeakerHandler(table: fixture.table)
        let error = rpcError { _ = try self.follow(handler, params) }
        #expect(error?.code == -32602)
        #expect(error?.message.contains(field) == true, "\(String(describing: error?.message))")
    }

    /// Neither names nor a prefix stops following; a new call replaces the set.
    @Test func anEmptyCallStopsFollowing() throws {
        let handler = SpeakerHandler(table: fixture.table)
        let output = try follow(handler, ["names": ["a"]])
        #expect(handler.followerCount == 1)
        _ = try handler.speakers(RPCParams([:]), session: fixture.table.connected["f1"]!, sessionID: "f1")
        #expect(handler.followerCount == 0)
        run(handler, seconds: 2, ["a": -20])
        #expect(output.messages.isEmpty)
    }
}
