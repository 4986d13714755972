import SluiceControl
import SluiceJSON
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

/// A registry that answers what the test says and records what it was asked.
final class RecordingNameRegistry: StreamNameRegistry {
    var answer: StreamNameClaim = .claimed
    private(set) var claims: [(stream: String, app: String)] = []
    private(set) var releases: [String] = []
    private(set) var reports: [[Int]] = []
    private(set) var published: [String] = []

    func claim(stream: String, app: String) -> StreamNameClaim {
        claims.append((stream, app))
        return answer
    }

    func release(stream: String) { releases.append(stream) }

    func report(sessions: Int, streams: Int, players: Int) { reports.append([sessions, streams, players]) }

    func published(stream: String) { published.append(stream) }
}

/// The name-in-use rule through `StreamNameRegistry` (docs/protocol.md section 6, **Cluster**):
/// the seam signaling has to the cluster, with the engine faked.
@Suite struct StreamNameRegistryTests {
    private func harness() -> (Harness, RecordingNameRegistry) {
        let harness = Harness()
        let registry = RecordingNameRegistry()
        harness.manager.nameRegistry = registry
        return (harness, registry)
    }

    @Test func aPublishClaimsItsNameAndGivesItBackOnStop() throws {
        let (harness, registry) = harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        #expect(output.messages.first?["result"]?["handle"] == "h1")
        #expect(registry.claims.map(\.stream) == ["cam"])
        #expect(registry.claims.map(\.app) == ["demo"])
        #expect(registry.releases.isEmpty)
        // A play of the name ending gives nothing back; the publisher's stop does.
        harness.manager.receive(harness.request(2, "play", ["stream": "cam", "sdp": "v=0"]), from: session)
        harness.manager.receive(harness.request(3, "stop", ["handle": "h2"]), from: session)
        #expect(registry.releases.isEmpty)
        harness.manager.receive(harness.request(4, "stop", ["handle": "h1"]), from: session)
        #expect(registry.releases == ["cam"])
    }

    /// The registry hears when a claimed publish was answered (the server then puts its codecs
    /// into the cluster's record); a refused one, or one that made no claim, is not announced.
    @Test func anAnsweredPublishIsAnnouncedOnce() throws {
        let (harness, registry) = harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        #expect(output.messages.first?["result"]?["handle"] == "h1")
        #expect(registry.published == ["cam"])
        harness.media.publishError = .streamNameInUse
        harness.manager.receive(harness.request(2, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        harness.media.publishError = .badSDP("line 1")
        harness.manager.receive(harness.request(3, "publish", ["stream": "other", "sdp": "v=0"]), from: session)
        registry.answer = .inUse(byNode: "node1")
        harness.manager.receive(harness.request(4, "publish", ["stream": "third", "sdp": "v=0"]), from: session)
        #expect(registry.published == ["cam"])
    }

    @Test func aSessionThatEndsGivesItsNamesBack() throws {
        let (harness, registry) = harness()
        let (session, _) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "a", "sdp": "v=0"]), from: session)
        harness.manager.receive(harness.request(2, "publish", ["stream": "b", "sdp": "v=0"]), from: session)
        harness.manager.closed(session)
        #expect(registry.releases.sorted() == ["a", "b"])
    }

    @Test func aNameHeldByAnotherNodeIs1003AndNothingIsMade() throws {
        let (harness, registry) = harness()
        let (session, output) = harness.connected()
        registry.answer = .inUse(byNode: "node1")
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        let error = try #require(output.last?["error"])
        #expect(error == ["code": 1003, "message": "Stream name is already in use", "data": ["reason": "STREAM_NAME_IN_USE"]])
        #expect(harness.media.publishRequests.isEmpty)
        #expect(session.handleRoles.isEmpty)
        #expect(registry.releases.isEmpty, "a refused claim is not ours to give back")
    }

    @Test func anUnavailableRegistryIs1013AndNothingIsMade() throws {
        let (harness, registry) = harness()
        let (session, output) = harness.connected()
        registry.answer = .unavailable("Redis connection: refused")
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        let error = try #require(output.last?["error"])
        #expect(error == ["code": 1013, "message": "Cluster state unavailable", "data": ["reason": "CLUSTER_UNAVAILABLE"]])
        #expect(harness.media.publishRequests.isEmpty)
        // Plays need no claim.
        harness.manager.receive(harness.request(2, "play", ["stream": "cam", "sdp": "v=0", "wait": true]), from: session)
        #expect(output.messages.last?["method"] == "streamStatus")
        #expect(registry.claims.count == 1)
    }

    @Test func aPublishTheEngineRefusesGivesTheNameBack() throws {
        let (harness, registry) = harness()
        let (session, output) = harness.connected()
        harness.media.publishError = .badSDP("line 1")
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        #expect(output.last?["error"]?["code"] == 1006)
        #expect(registry.claims.map(\.stream) == ["cam"])
        #expect(registry.releases == ["cam"])
    }

    @Test func aSecondPublishHereLeavesTheLivePublishersClaim() throws {
        let (harness, registry) = harness()
        let (session, _) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        // The engine answers 1003 for a name in use on this node; the claim stays with h1.
        harness.media.publishError = .streamNameInUse
        harness.manager.receive(harness.request(2, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        #expect(registry.claims.count == 1)
        #expect(registry.releases.isEmpty)
        harness.manager.receive(harness.request(3, "stop", ["handle": "h1"]), from: session)
        #expect(registry.releases == ["cam"])
    }

    @Test func figuresGoToTheRegistryAtMostOnceASecond() throws {
        let (harness, registry) = harness()
        let (publisher, _) = harness.connected()
        let (player, _) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: publisher)
        harness.manager.receive(harness.request(1, "play", ["stream": "cam", "sdp": "v=0"]), from: player)
        harness.manager.reportFigures()
        #expect(registry.reports == [[2, 1, 1]])
        harness.manager.closed(player)
        harness.manager.reportFigures()
        #expect(registry.reports.count == 1, "not again within the second")
        harness.clock.advance(seconds: 1)
        harness.manager.reportFigures()
        #expect(registry.reports.last == [1, 1, 0])
    }

    @Test func theClaimIsMadeAfterThePublishHookAndNotForARefusedOne() throws {
        let harness = HookHarness()
        let registry = RecordingNameRegistry()
        harness.manager.nameRegistry = registry
        let (session, output) = harness.connectedHooked()
        harness.send(session, 1, "publish", ["stream": "cam", "sdp": "v=0"])
        #expect(registry.claims.isEmpty, "nothing is claimed while the backend decides")
        harness.answer(.publishStream, .status(403))
        #expect(registry.claims.isEmpty)
        harness.send(session, 2, "publish", ["stream": "cam", "sdp": "v=0"])
        registry.answer = .inUse(byNode: "node2")
        harness.answer(.publishStream, .status(200))
        #expect(registry.claims.map(\.stream) == ["cam"])
        #expect(output.last?["error"]?["code"] == 1003)
        #expect(harness.media.publishRequests.isEmpty)
    }

    @Test func withoutARegistryNothingIsClaimed() throws {
        let harness = Harness()
        let (session, output) = harness.connected()
        harness.manager.receive(harness.request(1, "publish", ["stream": "cam", "sdp": "v=0"]), from: session)
        #expect(output.messages.first?["result"]?["handle"] == "h1")
        harness.manager.reportFigures()
    }
}
