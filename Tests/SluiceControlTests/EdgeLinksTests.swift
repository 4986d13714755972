@testable import SluiceControl
import SluiceMedia
import SluiceVocabulary
import Synchronization
import Testing

/// The links this node holds as an edge, on their own, over a cluster double whose link
/// requests the test answers: one request per stream, what each answer does, a lost link
/// asked for again, and the end of a relayed stream as the cached registry tells it.
@Suite(.serialized) final class EdgeLinksTests {
    /// The cluster as the edge sees it; the test answers its link requests.
    final class Cluster: RemoteStreams, @unchecked Sendable {
        let nodeID = "edge"
        var published: [String: String] = [:]
        var alive: Set<String> = []
        var available = true
        var requests: [LinkRequest] = []
        var answers: [@Sendable (Result<LinkAnswer, LinkFailure>) -> Void] = []
        var closed: [String] = []

        func codecs(of stream: String) -> StreamCodecs? { originNode(of: stream).map { _ in ControlParts.opus } }
        func originNode(of stream: String) -> String? { published[stream] }
        func isNodeAlive(_ node: String) -> Bool { alive.contains(node) }
        func open(_ request: LinkRequest, completion: @escaping @Sendable (Result<LinkAnswer, LinkFailure>) -> Void) {
            requests.append(request)
            answers.append(completion)
        }
        func close(stream: String, link: String) { closed.append("\(stream) \(link)") }
    }

    let parts: ControlParts
    let cluster = Cluster()
    let edge: EdgeLinks

    init() throws {
        parts = try ControlParts()
        edge = EdgeLinks(registry: parts.registry,
                         routes: DataChannelRoutes(registry: parts.registry, outbox: parts.outbox),
                         pool: parts.pool, outbox: parts.outbox, config: parts.config,
                         fingerprint: parts.security.fingerprint)
        edge.remoteStreams = cluster
    }

    deinit { parts.stop() }

    static func answer(link: String, candidateIP: String = "127.0.0.1") -> LinkAnswer {
        LinkAnswer(link: link, iceUfrag: "origU", icePassword: "originpasswordoriginpass", fingerprintAlgorithm: "sha-256",
                   fingerprint: "AA:BB", candidateIP: candidateIP, candidatePort: 9,
                   audio: LinkTrack(codec: ControlParts.opus.audio!, extensions: .init(), ssrcs: [1234]), video: nil)
    }

    /// Answers the `index`th request as the cluster's thread would, then drains as the
    /// control thread does.
    func answer(_ index: Int, _ result: Result<LinkAnswer, LinkFailure>) {
        cluster.answers[index](result)
        edge.drainAnswers()
    }

    @Test func withoutAClusterNothingIsRelayed() throws {
        edge.remoteStreams = nil
        #expect(try edge.remoteCodecs(of: "cam") == nil)
        edge.ensureLink("cam")
        edge.checkRemoteStreams()
        #expect(edge.count == 0)
    }

    /// Without Redis the cluster cannot say whether another node publishes a name: 1013.
    @Test func aClusterThatCannotSayIs1013() throws {
        cluster.published = ["cam": "node1"]
        #expect(try edge.remoteCodecs(of: "cam") == ControlParts.opus)
        cluster.available = false
        #expect(throws: MediaError.clusterUnavailable) { try self.edge.remoteCodecs(of: "cam") }
    }

    @Test func oneLinkIsAskedForPerStream() {
        edge.ensureLink("cam")
        edge.ensureLink("cam")
        #expect(cluster.requests.count == 1)
        #expect(cluster.requests.first?.edgeNode == "edge" && cluster.requests.first?.fingerprint == parts.security.fingerprint)
        #expect(edge.count == 1 && edge.upLinks.isEmpty)
    }

    /// A refusal drops the request; the next check asks again.
    @Test func aRefusedLinkIsAskedForAgain() {
        edge.ensureLink("cam")
        answer(0, .failure(LinkFailure("no publisher")))
        #expect(edge.count == 0 && edge.answersWaiting == 0)
        edge.ensureLink("cam")
        #expect(cluster.requests.count == 2)
    }

    /// The origin is told to drop a link it opened that is not wanted any more, or whose
    /// candidate cannot be reached.
    @Test func anAnswerNoOneCanUseIsClosedAtTheOrigin() {
        edge.ensureLink("cam")
        edge.ensureLink("mic")
        edge.streamGone("cam")
        answer(0, .success(Self.answer(link: "L1")))
        answer(1, .success(Self.answer(link: "L2", candidateIP: "not an address")))
        #expect(cluster.closed == ["cam L1", "mic L2"])
        #expect(edge.count == 0 && edge.upLinks.isEmpty)
    }

    /// An answer brings the link up; its failure drops it and asks again at once while
    /// players wait on the relayed stream, and not once none is left.
    @Test func aLostLinkIsAskedForAgainWhilePlayersWait() {
        parts.play("cam", handle: "play-1", wait: true)
        edge.relay("cam", codecs: ControlParts.opus)
        edge.ensureLink("cam")
        answer(0, .success(Self.answer(link: "L1")))
        #expect(edge.upLinks == ["cam": "L1"] && edge.handleCount == 1)
        edge.failed("link-other")
        #expect(edge.upLinks == ["cam": "L1"])
        edge.failed("link-L1")
        #expect(cluster.closed == ["cam L1"] && cluster.requests.count == 2 && edge.handleCount == 0)

        answer(1, .success(Self.answer(link: "L2")))
        _ = parts.registry.end("play-1", info: StatusInfo.user)
        edge.failed("link-L2")
        #expect(cluster.requests.count == 2 && edge.count == 0)
    }

    /// What a stream's players were relayed goes with the registry's entry.
    @Test func theRelayedStreamGoesWithItsEntry() {
        cluster.published = ["cam": "node1"]
        edge.relay("cam", codecs: ControlParts.opus)
        edge.ensureLink("cam")
        #expect(edge.relayedCount == 1)
        edge.streamGone("cam")
        #expect(edge.relayedCount == 0 && edge.count == 0)
    }

    /// The registry's view, once a second: a waiting player's stream gets a link when another
    /// node publishes it, and ends with the cause once none does, but not while the registry
    /// is unreachable, nor just after (every node claims its streams again first).
    @Test func theRegistrysViewStartsAndEndsRelays() {
        parts.play("cam", handle: "play-w", wait: true)
        cluster.alive = ["edge"]
        edge.checkRemoteStreams()
        #expect(cluster.requests.isEmpty)
        cluster.published = ["cam": "node1"]
        cluster.alive = ["node1", "edge"]
        edge.checkRemoteStreams()
        #expect(cluster.requests.map(\.stream) == ["cam"] && edge.relayedCount == 1)
        _ = parts.events()

        cluster.available = false
        edge.checkRemoteStreams()
        cluster.available = true
        cluster.published = [:]
        cluster.alive = ["edge"]
        edge.checkRemoteStreams()
        #expect(parts.statuses().isEmpty, "the registry has not settled")
        #expect(edge.relayedCount == 1)
    }

    @Test func aSettledRegistryEndsTheRelayWithItsCause() {
        let waiting = parts.play("cam", handle: "play-w", wait: true)
        cluster.published = ["cam": "node1"]
        cluster.alive = ["node1", "edge"]
        edge.checkRemoteStreams()
        _ = parts.events()
        cluster.published = [:]
        cluster.alive = ["edge"]
        edge.checkRemoteStreams()
        let told = parts.statuses()
        #expect(told.count == 1 && told[0].handle == waiting && told[0].info == StatusInfo.originNodeLoss && !told[0].ends)
        #expect(edge.relayedCount == 0 && edge.count == 0 && parts.registry.contains(waiting))
    }
}

/// The engine keeps an edge's state with its registry: the last player's end drops the link
/// and what was relayed, and a new play asks again.
@Suite(.serialized) final class EdgeLinksEngineTests {
    @Test func theLastPlayersEndDropsTheLink() throws {
        let engine = try MediaEngineRegistryTests.engine()
        defer { engine.shutdown() }
        let cluster = EdgeLinksTests.Cluster()
        cluster.published = ["cam": "node1"]
        cluster.alive = ["node1", "edge"]
        engine.remoteStreams = cluster
        func play() throws -> MediaAnswer {
            try engine.play(PlayRequest(session: "p", stream: "cam", offer: MediaEngineRegistryTests.offer(direction: "recvonly"),
                                        constraints: StreamConstraints(video: nil), wait: false))
        }
        let player = try play()
        #expect(engine.edge.relayedCount == 1 && cluster.requests.count == 1)
        try engine.stop(handle: player.handle)
        #expect(engine.edge.relayedCount == 0 && engine.edge.count == 0)
        #expect(engine.tableSizes()["engine.edgeLinks"] == 0)
        _ = try play()
        #expect(cluster.requests.count == 2)
    }
}
