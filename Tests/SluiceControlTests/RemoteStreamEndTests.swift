import Synchronization
import Testing
@testable import SluiceControl
import SluiceMedia
import SluiceVocabulary
import SluiceWire

/// The end of a relayed stream names its cause (issue 9, "A node dies"): "Stopped by origin
/// node loss" when the origin node's heartbeat record is gone, "Stopped by publisher stop"
/// when the origin lives and no longer publishes it. First the decision alone, then the engine
/// over a RemoteStreams double (the cluster's view; no link is ever answered, so no packet).
@Suite(.serialized) final class RemoteStreamEndTests {
    static let codecs = StreamCodecs(audio: StreamCodec(name: "opus", payloadType: 111, clockRate: 48000, fmtp: ""),
                                     video: nil, layers: 1)

    // MARK: The decision

    @Test func aRelayedStreamWhoseOriginDiedEndsWithOriginNodeLoss() {
        let verdict = RemoteStreamVerdict.decide(relaying: true, relayedFrom: "node1", current: nil, settled: true,
                                                 isAlive: { _ in false })
        #expect(verdict == .end(info: "Stopped by origin node loss"))
        #expect(StatusInfo.originNodeLoss == "Stopped by origin node loss")
    }

    @Test func aRelayedStreamWhoseLiveOriginStoppedEndsWithPublisherStop() {
        // Control for the test above: the same absence with the origin alive.
        let verdict = RemoteStreamVerdict.decide(relaying: true, relayedFrom: "node1", current: nil, settled: true,
                                                 isAlive: { $0 == "node1" })
        #expect(verdict == .end(info: StatusInfo.publisherStop))
        // An origin never learnt (an older path): the stop, as before.
        #expect(RemoteStreamVerdict.decide(relaying: true, relayedFrom: nil, current: nil, settled: true,
                                           isAlive: { _ in false }) == .end(info: StatusInfo.publisherStop))
    }

    @Test func nothingEndsWhileTheRegistryIsUnsettledOrNothingWasRelayed() {
        #expect(RemoteStreamVerdict.decide(relaying: true, relayedFrom: "node1", current: nil, settled: false,
                                           isAlive: { _ in false }) == .hold)
        #expect(RemoteStreamVerdict.decide(relaying: false, relayedFrom: nil, current: nil, settled: true,
                                           isAlive: { _ in false }) == .hold)
    }

    @Test func aPublishedStreamIsRelayedAndAMovedOneEndsTheOldFirst() {
        #expect(RemoteStreamVerdict.decide(relaying: false, relayedFrom: nil, current: (Self.codecs, "node3"), settled: true,
                                           isAlive: { _ in true }) == .relay(codecs: Self.codecs, origin: "node3"))
        #expect(RemoteStreamVerdict.decide(relaying: true, relayedFrom: "node3", current: (Self.codecs, "node3"), settled: false,
                                           isAlive: { _ in true }) == .relay(codecs: Self.codecs, origin: "node3"))
        // Published now by node 3 while this node relayed node 1's: node 1's stream ended.
        #expect(RemoteStreamVerdict.decide(relaying: true, relayedFrom: "node1", current: (Self.codecs, "node3"), settled: true,
                                           isAlive: { $0 == "node3" }) == .end(info: StatusInfo.originNodeLoss))
        #expect(RemoteStreamVerdict.decide(relaying: true, relayedFrom: "node1", current: (Self.codecs, "node3"), settled: true,
                                           isAlive: { _ in true }) == .end(info: StatusInfo.publisherStop))
    }

    // MARK: The engine

    /// The cluster as the engine sees it: streams other nodes publish and the live nodes.
    final class FakeRemoteStreams: RemoteStreams, @unchecked Sendable {
        let nodeID = "edge"
        var published: [String: String] = [:]
        var alive: Set<String> = []
        var available = true
        let opened = Mutex<[String]>([])

        func codecs(of stream: String) -> StreamCodecs? { originNode(of: stream).map { _ in RemoteStreamEndTests.codecs } }
        func originNode(of stream: String) -> String? { published[stream].flatMap { alive.contains($0) ? $0 : nil } }
        func isNodeAlive(_ node: String) -> Bool { alive.contains(node) }
        func open(_ request: LinkRequest, completion: @escaping @Sendable (Result<LinkAnswer, LinkFailure>) -> Void) {
            opened.withLock { $0.append(request.stream) }
        }
        func close(stream: String, link: String) {}
    }

    let engine: MediaEngine
    let remote = FakeRemoteStreams()

    init() throws {
        engine = try MediaEngineRegistryTests.engine()
        engine.remoteStreams = remote
    }

    deinit { engine.shutdown() }

    func play(_ stream: String, session: SessionID, wait: Bool = false) throws(MediaError) -> MediaAnswer {
        try engine.play(PlayRequest(session: session, stream: stream, offer: MediaEngineRegistryTests.offer(direction: "recvonly"),
                                    constraints: StreamConstraints(video: nil), wait: wait))
    }

    /// (handle, status, info, ends) of every status queued since the last call.
    func statuses() -> [(StreamHandle, StreamStatus, String?, Bool)] {
        var out: [(StreamHandle, StreamStatus, String?, Bool)] = []
        engine.drainEvents {
            if case .streamStatus(_, let handle, _, _, let status, let info, let ends) = $0 { out.append((handle, status, info, ends)) }
        }
        return out
    }

    /// Players of `cam` from node1; then the registry loses the stream, with node1 `alive` or
    /// not: what each player is told.
    func endOfRelayedStream(originAlive: Bool) throws -> [(StreamHandle, StreamStatus, String?, Bool)] {
        remote.published = ["cam": "node1"]
        remote.alive = ["node1", "edge"]
        let player = try play("cam", session: "p1")
        let waiting = try play("cam", session: "p2", wait: true)
        #expect(remote.opened.withLock { $0 } == ["cam"], "one link asked for, for both players")
        engine.checkRemoteStreams()
        _ = statuses()
        remote.published = [:]
        if !originAlive { remote.alive = ["edge"] }
        engine.checkRemoteStreams()
        let told = statuses().filter { $0.1 == .unpublished }
        #expect(Set(told.map(\.0)) == [player.handle, waiting.handle])
        #expect(told.first { $0.0 == player.handle }?.3 == true, "the player ends")
        #expect(told.first { $0.0 == waiting.handle }?.3 == false, "the waiting player stays")
        return told
    }

    @Test func theEnginesPlayersOfADeadOriginAreToldItsLoss() throws {
        let told = try endOfRelayedStream(originAlive: false)
        #expect(told.allSatisfy { $0.2 == "Stopped by origin node loss" }, "\(told)")
    }

    @Test func theEnginesPlayersOfAStoppedPublisherAreToldTheStop() throws {
        let told = try endOfRelayedStream(originAlive: true)
        #expect(told.allSatisfy { $0.2 == "Stopped by publisher stop" }, "\(told)")
    }

    @Test func theWaitingPlayerIsRelayedAgainWhenAnotherNodePublishes() throws {
        _ = try endOfRelayedStream(originAlive: false)
        remote.published = ["cam": "node3"]
        remote.alive = ["node3", "edge"]
        engine.checkRemoteStreams()
        #expect(remote.opened.withLock { $0 } == ["cam", "cam"], "a new link, from node 3")
        // Control: nothing more is asked for while the link is on its way.
        engine.checkRemoteStreams()
        #expect(remote.opened.withLock { $0 }.count == 2)
    }
}
