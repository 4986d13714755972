import Dispatch
import SluiceCalls
import SluiceCluster
import SluiceJSON
import SluiceSignaling
import Synchronization

/// Signaling's `CallCluster` over this node's `ClusterMember` and the nodes' control channel
/// (docs/cluster.md, "Calls across nodes"): presence goes into and comes from the Redis
/// registry with the heartbeat; messages go to a node with `POST /api/v1/cluster/calls`,
/// authenticated with `cluster.secret`, one node at a time in order (a serial queue per node),
/// off the signaling thread.
final class ClusterCalls: CallCluster, @unchecked Sendable {
    // @unchecked: `queues` is behind its lock; the rest is immutable.
    let nodeID: String
    private let member: ClusterMember
    private let channel: ClusterControlChannel
    private let queues = Mutex<[String: DispatchQueue]>([:])

    init(member: ClusterMember, secret: String, timeoutMs: Int = 2000, caFile: String? = nil) {
        self.member = member
        nodeID = member.nodeId
        channel = ClusterControlChannel(secret: secret, timeoutMs: timeoutMs, caFile: caFile)
    }

    func setPresence(_ sessions: [RemoteSession]) {
        member.setPresence(sessions.map {
            PresenceRecord.Session(session: $0.session, app: $0.user.appKey, user: $0.user.name, calls: $0.calls.sorted())
        })
    }

    var presenceVersion: Int { member.snapshot.serial }

    func presence() -> ClusterPresence? {
        let snapshot = member.snapshot
        guard snapshot.redisReachable else { return nil }
        let live = Set(snapshot.nodes.map(\.nodeId))
        var sessions: [RemoteSession] = []
        for record in snapshot.presence where record.node != nodeID && live.contains(record.node) {
            for entry in record.sessions {
                sessions.append(RemoteSession(session: entry.session, user: CallUser(appKey: entry.app, name: entry.user),
                                              node: record.node, calls: Set(entry.calls)))
            }
        }
        return ClusterPresence(version: snapshot.serial, sessions: sessions, liveNodes: live)
    }

    func send(_ messages: [ClusterCallMessage], to node: String,
              reply: @escaping @Sendable (Result<ClusterCallReply, ClusterCallFailure>) -> Void) {
        let queue = queues.withLock { queues in
            if let queue = queues[node] { return queue }
            let queue = DispatchQueue(label: "sluice-cluster-calls-\(node)")
            queues[node] = queue
            return queue
        }
        guard let target = member.snapshot.nodes.first(where: { $0.nodeId == node }),
              let url = Self.callsURL(signalingURL: target.signalingURL) else {
            queue.async { reply(.failure(ClusterCallFailure("node \(node) is not in the cluster"))) }
            return
        }
        let body = ClusterCallJSON.batch(from: nodeID, messages).serializedBytes()
        let channel = self.channel
        queue.async {
            switch channel.exchange(method: "POST", url: url, json: body) {
            case .timedOut:
                reply(.failure(ClusterCallFailure("node \(node) did not answer within \(channel.timeoutMs) ms")))
            case .failed(let why):
                reply(.failure(ClusterCallFailure("node \(node): \(why)")))
            case .response(let status, let bytes):
                guard status == 200 else {
                    let text = String(decoding: bytes.prefix(300), as: UTF8.self)
                    reply(.failure(ClusterCallFailure("node \(node) answered \(status): \(text)")))
                    return
                }
                do {
                    reply(.success(try ClusterCallJSON.reply(from: bytes)))
                } catch {
                    reply(.failure(ClusterCallFailure("node \(node) sent a bad answer: \(error)")))
                }
            }
        }
    }

    /// `ws://host:port/ws` -> `http://host:port/api/v1/cluster/calls` (`wss` -> `https`).
    static func callsURL(signalingURL: String) -> String? {
        ClusterRemoteStreams.linksURL(signalingURL: signalingURL)
            .map { String($0.dropLast(ClusterLinkEndpoint.path.count)) + ClusterCallEndpoint.path }
    }
}
