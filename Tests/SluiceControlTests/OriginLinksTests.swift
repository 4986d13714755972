@testable import SluiceControl
import SluiceVocabulary
import Testing

/// The links this node serves as an origin, on their own: a link needs a publisher here, is
/// answered with its codecs and this node's candidate, and goes with the edge's close or its
/// failure. The edge never connects: no packet is sent.
@Suite(.serialized) final class OriginLinksTests {
    let parts: ControlParts
    let origin: OriginLinks

    init() throws {
        parts = try ControlParts()
        origin = OriginLinks(registry: parts.registry,
                             routes: DataChannelRoutes(registry: parts.registry, outbox: parts.outbox),
                             pool: parts.pool, config: parts.config, fingerprint: parts.security.fingerprint)
    }

    deinit { parts.stop() }

    func request(_ stream: String, edge: String = "node2") -> LinkRequest {
        LinkRequest(stream: stream, edgeNode: edge, iceUfrag: "edgeU", icePassword: "edgepasswordedgepassword",
                    fingerprintAlgorithm: "sha-256", fingerprint: "AA:BB")
    }

    @Test func aLinkNeedsAPublisherHere() {
        #expect(throws: MediaError.streamNotFound) { try self.origin.open(self.request("cam")) }
        parts.play("cam", handle: "play-1", wait: true)
        #expect(throws: MediaError.streamNotFound) { try self.origin.open(self.request("cam")) }
        #expect(origin.count == 0 && origin.codecs(of: "cam") == nil)
    }

    /// The answer carries the publisher's codecs on SSRCs of the link's own, and the host
    /// other nodes reach this one at (`cluster.relayAddress`, else the first announced address).
    @Test func theAnswerCarriesThePublishersCodecsAndThisNodesCandidate() throws {
        parts.publish("cam")
        #expect(origin.codecs(of: "cam") == ControlParts.opus)
        let first = try origin.open(request("cam"))
        #expect(first.audio?.codec == ControlParts.opus.audio && first.audio?.ssrcs.count == 1 && first.video == nil)
        #expect(first.candidateIP == "127.0.0.1" && first.candidatePort == Int(parts.pool.workers[0].localAddress.port))
        #expect(first.fingerprint == parts.security.fingerprint && first.fingerprintAlgorithm == "sha-256")
        origin.relayHost = "127.0.0.5"
        let second = try origin.open(request("cam", edge: "node3"))
        #expect(second.candidateIP == "127.0.0.5" && second.link != first.link)
        #expect(Set(origin.views.map(\.edgeNode)) == ["node2", "node3"] && origin.views.allSatisfy { $0.stream == "cam" })
        #expect(origin.count == 2 && origin.handleCount == 2)
    }

    /// The edge's close, or the link's failure here, drops it; a handle that is no link of
    /// this origin's is left to the edge side.
    @Test func closeAndFailureDropTheLink() throws {
        parts.publish("cam")
        let closed = try origin.open(request("cam"))
        let failed = try origin.open(request("cam", edge: "node3"))
        origin.close(closed.link)
        origin.close(closed.link)
        #expect(origin.views.map(\.link) == [failed.link])
        #expect(!origin.failed("link-other"))
        #expect(origin.failed("link-" + failed.link))
        #expect(origin.count == 0 && origin.handleCount == 0)
        #expect(origin.packets.links.isEmpty)
    }
}
