import Foundation
import SluiceCluster
import SluiceControl
import SluiceJSON
import SluiceSignaling
import Synchronization
import XCTest
@testable import SluiceServer

/// ClusterRemoteStreams against a real redis-server: what another node publishes and its
/// codecs come from the member's cache, and a link is asked for over HTTP from a real origin
/// server (whose engine refuses it for now: only the control channel is under test here).
final class ClusterRemoteStreamsTests: XCTestCase {
    static let secret = "remote-streams-secret-0123"
    static let codecs = RecordCodecs(audio: .init(name: "opus", payloadType: 111, clockRate: 48000, fmtp: "minptime=10",
                                                  redPayloadType: 63),
                                     video: .init(name: "VP8", payloadType: 96, clockRate: 90000, fmtp: ""), layers: 3)
    static let fingerprint = Array(repeating: "AB", count: 32).joined(separator: ":")
    static let request = LinkRequest(stream: "cam", edgeNode: "edge-a", iceUfrag: "abcd", icePassword: "abcdefghijklmnopqrstuv",
                                     fingerprintAlgorithm: "sha-256", fingerprint: fingerprint)
    static let answer = LinkAnswer(link: "Lk7", iceUfrag: "wxyz", icePassword: "ABCDEFGHIJKLMNOPQRSTUV", fingerprintAlgorithm: "sha-256",
                                   fingerprint: fingerprint, candidateIP: "127.0.0.2", candidatePort: 10000, audio: nil,
                                   video: LinkTrack(codec: StreamCodec(name: "VP8", payloadType: 96, clockRate: 90000, fmtp: ""),
                                                    extensions: .init(mid: 1, rid: 2), ssrcs: [1, 2, 3]))

    private func member(_ redis: RedisServerFixture, nodeId: String = "edge-a") -> ClusterMember {
        var settings = ClusterMember.Settings(url: redis.url)
        settings.heartbeatMs = 100
        settings.ttlMs = 1000
        settings.connectTimeoutMs = 200
        settings.commandTimeoutMs = 200
        return ClusterMember(settings: settings, nodeId: nodeId, relayAddress: "127.0.0.1:7001",
                             signalingURL: "ws://127.0.0.1:1/ws")
    }

    func testCodecsComeFromLiveOtherNodesOnlyAndNotWhileRedisIsAway() throws {
        let redis = try RedisServerFixture.start()
        let member = member(redis)
        member.start()
        defer { member.stop() }
        let remote = ClusterRemoteStreams(member: member, secret: Self.secret)
        XCTAssertEqual(remote.nodeID, "edge-a")
        let registry = ClusterRegistry(connection: redis.connection())
        try registry.register(NodeRecord(nodeId: "origin-b", relayAddress: "127.0.0.1:7002", signalingURL: "ws://127.0.0.1:2/ws"),
                              ttlMs: 60_000)
        XCTAssertEqual(try registry.claim(StreamRecord(name: "cam", app: "defaultApp", node: "origin-b", codecs: Self.codecs),
                                          ttlMs: 60_000), .claimed)
        // A stream whose record has no codecs yet, one of a node that is not alive, and one of this node.
        XCTAssertEqual(try registry.claim(StreamRecord(name: "early", app: "defaultApp", node: "origin-b"), ttlMs: 60_000), .claimed)
        XCTAssertEqual(try registry.claim(StreamRecord(name: "orphan", app: "defaultApp", node: "gone-c", codecs: Self.codecs),
                                          ttlMs: 60_000), .claimed)
        XCTAssertEqual(try member.claim(stream: "mine", app: "defaultApp"), .claimed)
        member.setCodecs(Self.codecs, ofStream: "mine")

        XCTAssertTrue(waitUntil(5) { remote.codecs(of: "cam") != nil }, "\(member.snapshot)")
        XCTAssertTrue(remote.available)
        XCTAssertEqual(remote.codecs(of: "cam"), StreamCodecs(
            audio: StreamCodec(name: "opus", payloadType: 111, clockRate: 48000, fmtp: "minptime=10", redPayloadType: 63),
            video: StreamCodec(name: "VP8", payloadType: 96, clockRate: 90000, fmtp: ""), layers: 3))
        XCTAssertNil(remote.codecs(of: "early"), "no codecs in the record yet")
        XCTAssertNil(remote.codecs(of: "orphan"), "its node is not in the node list")
        XCTAssertNil(remote.codecs(of: "nothing"))
        // This node's own stream, with its codecs in the record, is not a remote one.
        XCTAssertTrue(waitUntil(5) { member.snapshot.streams.first { $0.name == "mine" }?.codecs == Self.codecs })
        XCTAssertNil(remote.codecs(of: "mine"))

        redis.kill()
        XCTAssertTrue(waitUntil(5) { !remote.available })
        XCTAssertNil(remote.codecs(of: "cam"), "a stale cache offers nothing")
        try redis.restart()
    }

    func testSetCodecsReachesTheRecordAndANewClaimStartsWithout() throws {
        let redis = try RedisServerFixture.start()
        let member = member(redis)
        member.start()
        defer { member.stop() }
        let registry = ClusterRegistry(connection: redis.connection())
        XCTAssertEqual(try member.claim(stream: "cam", app: "defaultApp"), .claimed)
        XCTAssertNil(try registry.stream("cam")?.codecs)
        member.setCodecs(Self.codecs, ofStream: "cam")
        XCTAssertTrue(waitUntil(5) { (try? registry.stream("cam"))??.codecs == Self.codecs })
        // Refreshes keep them.
        usleep(300_000)
        XCTAssertEqual(try registry.stream("cam")?.codecs, Self.codecs)
        member.release(stream: "cam")
        XCTAssertEqual(try member.claim(stream: "cam", app: "defaultApp"), .claimed)
        usleep(300_000)
        XCTAssertNil(try registry.stream("cam")?.codecs, "a new publisher's record starts without the old codecs")
        // Codecs of a name not claimed are dropped.
        member.setCodecs(Self.codecs, ofStream: "never")
        usleep(300_000)
        XCTAssertNil(try registry.stream("never"))
    }

    /// Against a real origin server with `cluster.secret`: the POST reaches it, and each of its
    /// refusals comes back as a LinkFailure that says what went wrong.
    func testOpenAsksTheOriginOverHTTPAndNamesEachFailure() throws {
        let redis = try RedisServerFixture.start()
        let origin = try Self.server(redis: redis, nodeId: "origin-b", secret: Self.secret)
        defer { origin.shutdown() }
        let openOrigin = try Self.server(redis: redis, nodeId: "origin-c", secret: nil)
        defer { openOrigin.shutdown() }
        let member = member(redis)
        member.start()
        defer { member.stop() }
        let registry = ClusterRegistry(connection: redis.connection())
        XCTAssertEqual(try registry.claim(StreamRecord(name: "cam", app: "defaultApp", node: "origin-b", codecs: Self.codecs),
                                          ttlMs: 60_000), .claimed)
        XCTAssertEqual(try registry.claim(StreamRecord(name: "cam3", app: "defaultApp", node: "origin-c"), ttlMs: 60_000), .claimed)
        try registry.register(NodeRecord(nodeId: "dead-d", relayAddress: "127.0.0.1:7004",
                                         signalingURL: "ws://127.0.0.1:\(try RedisServerFixture.freePort())/ws"), ttlMs: 60_000)
        XCTAssertEqual(try registry.claim(StreamRecord(name: "cam4", app: "defaultApp", node: "dead-d"), ttlMs: 60_000), .claimed)
        XCTAssertTrue(waitUntil(5) { Set(member.snapshot.nodes.map(\.nodeId)).isSuperset(of: ["origin-b", "origin-c", "dead-d"]) })

        let remote = ClusterRemoteStreams(member: member, secret: Self.secret)
        func open(_ stream: String, via remote: ClusterRemoteStreams) -> Result<LinkAnswer, LinkFailure>? {
            let result = Mutex<Result<LinkAnswer, LinkFailure>?>(nil)
            var request = Self.request
            request.stream = stream
            request.edgeNode = "edge-a"
            remote.open(request) { outcome in result.withLock { $0 = outcome } }
            _ = waitUntil(5) { result.withLock { $0 != nil } }
            return result.withLock { $0 }
        }
        func failure(_ result: Result<LinkAnswer, LinkFailure>?) -> String {
            guard case .failure(let failure)? = result else { return "not a failure: \(String(describing: result))" }
            return failure.message
        }
        // The origin's engine has no such stream yet (its media side is not built): 404 from it.
        XCTAssertTrue(failure(open("cam", via: remote)).contains("origin node origin-b does not publish cam (404"),
                      failure(open("cam", via: remote)))
        let wrong = ClusterRemoteStreams(member: member, secret: "another-secret-0123456")
        XCTAssertTrue(failure(open("cam", via: wrong)).contains("refused this node's cluster.secret (401)"))
        XCTAssertTrue(failure(open("cam3", via: remote)).contains("serves no relay links: it has no cluster.secret (403)"))
        XCTAssertTrue(failure(open("cam4", via: remote)).contains("origin node dead-d is unreachable"), failure(open("cam4", via: remote)))
        XCTAssertTrue(failure(open("nothing", via: remote)).contains("no other node publishes nothing"))
        // Best effort, never on the caller's thread, and never a crash for an unknown link.
        remote.close(stream: "cam", link: "Lk7")
        remote.close(stream: "nothing", link: "Lk8")
    }

    func testTheAnswerAndItsStatusesBecomeResults() throws {
        let body = LinkJSON.json(Self.answer).serializedBytes()
        XCTAssertEqual(try ClusterRemoteStreams.result(of: .response(status: 200, body: body), stream: "cam", node: "b",
                                                       timeoutMs: 2000).get(), Self.answer)
        func message(_ outcome: BlockingHTTPClient.Outcome) -> String {
            guard case .failure(let failure) = ClusterRemoteStreams.result(of: outcome, stream: "cam", node: "b", timeoutMs: 2000) else {
                return "success"
            }
            return failure.message
        }
        XCTAssertTrue(message(.response(status: 200, body: Array("{}".utf8))).contains("sent a bad link answer: 'link' is required"))
        XCTAssertTrue(message(.timedOut).contains("did not answer within 2000 ms"))
        XCTAssertTrue(message(.failed("cannot connect")).contains("unreachable: cannot connect"))
        let error = HTTPResponse.error(status: 503, message: "too many", reason: "LIMIT_REACHED").body
        XCTAssertTrue(message(.response(status: 503, body: error)).contains("refused the link (503: too many)"))
        XCTAssertEqual(ClusterRemoteStreams.linksURL(signalingURL: "ws://127.0.0.2:8080/ws"),
                       "http://127.0.0.2:8080/api/v1/cluster/links")
        XCTAssertEqual(ClusterRemoteStreams.linksURL(signalingURL: "wss://[::1]:8443/ws"), "https://[::1]:8443/api/v1/cluster/links")
        XCTAssertNil(ClusterRemoteStreams.linksURL(signalingURL: "http://x/ws"))
        XCTAssertNil(ClusterRemoteStreams.linksURL(signalingURL: "ws:///ws"))
    }

    static func server(redis: RedisServerFixture, nodeId: String, secret: String?) throws -> Server {
        var lastError: Error?
        for _ in 0..<20 {
            var config = ServerConfig()
            config.httpPort = Int.random(in: 20000...60000)
            config.rtcPort = Int.random(in: 20000...60000)
            config.rtcWorkers = 1
            config.logLevel = "error"
            config.cluster = ClusterConfig(redis: redis.url, nodeId: nodeId, relayAddress: "127.0.0.1:10000", secret: secret)
            do {
                let server = try Server(config: config)
                try server.start()
                XCTAssertEqual(server.media.remoteStreams != nil, secret != nil)
                return server
            } catch {
                lastError = error
            }
        }
        throw lastError ?? XCTSkip("could not start a server")
    }
}
