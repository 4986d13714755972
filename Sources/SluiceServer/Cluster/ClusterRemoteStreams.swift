import Dispatch
import SluiceCluster
import SluiceControl
import SluiceJSON
import SluiceSignaling
import SluiceWire
import Synchronization

/// The engine's `RemoteStreams` over this node's `ClusterMember` (docs/cluster.md, "Relay
/// links"): which streams other nodes publish, and their codecs, come from the member's cached
/// snapshot (never a Redis command on the control thread); links are asked for with a POST to
/// the origin's `/api/v1/cluster/links`, authenticated with `cluster.secret`, on a background
/// queue with a short timeout.
// @unchecked: its mutable state is in Mutexes; `member` and `channel` are thread-safe by their own contracts (ClusterMember: Mutex-guarded snapshot).
final class ClusterRemoteStreams: RemoteStreams, @unchecked Sendable {
    let nodeID: String
    private let member: ClusterMember
    private let channel: ClusterControlChannel
    private let queue = DispatchQueue(label: "sluice-cluster-links", attributes: .concurrent)
    /// The links URL of each open link's origin, so a close still reaches it after the stream's
    /// record is gone (the origin's publisher ended, or Redis went away).
    private let linkOrigins = Mutex<[String: String]>([:])
    /// Streams `lookUp` read from Redis that the cached snapshot did not list yet, until a
    /// snapshot has had the time to list them (`freshMicros`).
    private let fresh = Mutex<[String: (record: StreamRecord, node: NodeRecord, until: UInt64)]>([:])
    static let freshMicros: UInt64 = 3_000_000

    init(member: ClusterMember, secret: String, timeoutMs: Int = 2000, caFile: String? = nil) {
        self.member = member
        nodeID = member.nodeId
        channel = ClusterControlChannel(secret: secret, timeoutMs: timeoutMs, caFile: caFile)
    }

    var available: Bool { member.snapshot.redisReachable }

    func codecs(of stream: String) -> StreamCodecs? {
        guard let origin = origin(of: stream) else { return nil }
        return origin.record.codecs.flatMap(Self.streamCodecs)
    }

    func lookUp(_ stream: String) -> StreamCodecs? {
        guard let found = try? member.lookup(stream: stream), found.record.node != nodeID,
              let codecs = found.record.codecs.flatMap(Self.streamCodecs) else { return nil }
        let until = MonotonicClock.nowMicros() + Self.freshMicros
        fresh.withLock { $0[stream] = (found.record, found.node, until) }
        return codecs
    }

    func originNode(of stream: String) -> String? { origin(of: stream)?.node.nodeId }

    func isNodeAlive(_ node: String) -> Bool {
        member.snapshot.nodes.contains { $0.nodeId == node } || freshEntries().contains { $0.node.nodeId == node }
    }

    /// The stream's record and its origin's node record, when another node that is alive in the
    /// cached node list publishes it (or `lookUp` just read it from Redis). While Redis is away
    /// the cache is stale: nothing.
    private func origin(of stream: String) -> (record: StreamRecord, node: NodeRecord)? {
        let snapshot = member.snapshot
        if snapshot.redisReachable, let record = snapshot.streams.first(where: { $0.name == stream }),
           record.node != nodeID, let node = snapshot.nodes.first(where: { $0.nodeId == record.node }) {
            return (record, node)
        }
        return freshEntries().first { $0.record.name == stream }.map { ($0.record, $0.node) }
    }

    /// The unexpired `lookUp` results (expired ones go).
    private func freshEntries() -> [(record: StreamRecord, node: NodeRecord)] {
        let now = MonotonicClock.nowMicros()
        return fresh.withLock { entries in
            entries = entries.filter { $0.value.until > now }
            return entries.values.map { ($0.record, $0.node) }
        }
    }

    func open(_ request: LinkRequest, completion: @escaping @Sendable (Result<LinkAnswer, LinkFailure>) -> Void) {
        guard let origin = origin(of: request.stream) else {
            let why = available ? "no other node publishes \(request.stream)" : "the cluster's state is unavailable (Redis)"
            queue.async { completion(.failure(LinkFailure(why))) }
            return
        }
        guard let url = Self.linksURL(signalingURL: origin.node.signalingURL) else {
            queue.async { completion(.failure(LinkFailure("node \(origin.node.nodeId) has no usable signaling URL (\(origin.node.signalingURL))"))) }
            return
        }
        let body = LinkJSON.json(request).serializedBytes()
        let (channel, node) = (self.channel, origin.node.nodeId)
        queue.async { [self] in
            let outcome = channel.exchange(method: "POST", url: url, json: body)
            let result = Self.result(of: outcome, stream: request.stream, node: node, timeoutMs: channel.timeoutMs)
            if case .success(let answer) = result { linkOrigins.withLock { $0[answer.link] = url } }
            completion(result)
        }
    }

    func close(stream: String, link: String) {
        let known = linkOrigins.withLock { $0.removeValue(forKey: link) }
        guard let base = known ?? origin(of: stream).flatMap({ Self.linksURL(signalingURL: $0.node.signalingURL) }) else { return }
        let channel = self.channel
        // Best effort: an origin that is gone has dropped the link already (or will, when the
        // link's ICE consent runs out).
        queue.async { _ = channel.exchange(method: "DELETE", url: "\(base)/\(link)") }
    }

    /// `ws://host:port/ws` -> `http://host:port/api/v1/cluster/links` (`wss` -> `https`).
    static func linksURL(signalingURL: String) -> String? {
        let lowered = signalingURL.lowercased()
        let scheme: String
        let rest: Substring
        if lowered.hasPrefix("wss://") {
            scheme = "https"
            rest = signalingURL.dropFirst(6)
        } else if lowered.hasPrefix("ws://") {
            scheme = "http"
            rest = signalingURL.dropFirst(5)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" }
        guard !authority.isEmpty else { return nil }
        return "\(scheme)://\(authority)\(ClusterLinkEndpoint.path)"
    }

    /// What the origin's answer means for the edge, in words for its log and its players.
    static func result(of outcome: BlockingHTTPClient.Outcome, stream: String, node: String,
                       timeoutMs: Int) -> Result<LinkAnswer, LinkFailure> {
        switch outcome {
        case .timedOut:
            return .failure(LinkFailure("origin node \(node) did not answer within \(timeoutMs) ms"))
        case .failed(let why):
            return .failure(LinkFailure("origin node \(node) is unreachable: \(why)"))
        case .response(200, let body):
            do {
                return .success(try LinkJSON.answer(from: body))
            } catch {
                return .failure(LinkFailure("origin node \(node) sent a bad link answer: \(error)"))
            }
        case .response(let status, let body):
            let message = (try? JSONValue.parse(body))?["error"]?["message"]?.stringValue ?? "no error message"
            switch status {
            case 404:
                return .failure(LinkFailure("origin node \(node) does not publish \(stream) (404: \(message))"))
            case 401:
                return .failure(LinkFailure("origin node \(node) refused this node's cluster.secret (401)"))
            case 403:
                return .failure(LinkFailure("origin node \(node) serves no relay links: it has no cluster.secret (403)"))
            default:
                return .failure(LinkFailure("origin node \(node) refused the link (\(status): \(message))"))
            }
        }
    }

    // MARK: Codecs between the record and the control plane

    static func streamCodecs(_ codecs: RecordCodecs) -> StreamCodecs {
        func codec(_ codec: RecordCodecs.Codec) -> StreamCodec {
            StreamCodec(name: codec.name, payloadType: UInt8(clamping: codec.payloadType),
                        clockRate: UInt32(clamping: codec.clockRate), fmtp: codec.fmtp,
                        redPayloadType: codec.redPayloadType.map { UInt8(clamping: $0) })
        }
        return StreamCodecs(audio: codecs.audio.map(codec), video: codecs.video.map(codec), layers: codecs.layers)
    }

    static func recordCodecs(_ codecs: StreamCodecs) -> RecordCodecs {
        func codec(_ codec: StreamCodec) -> RecordCodecs.Codec {
            RecordCodecs.Codec(name: codec.name, payloadType: Int(codec.payloadType), clockRate: Int(codec.clockRate),
                               fmtp: codec.fmtp, redPayloadType: codec.redPayloadType.map { Int($0) })
        }
        return RecordCodecs(audio: codecs.audio.map(codec), video: codecs.video.map(codec), layers: max(1, codecs.layers))
    }
}
