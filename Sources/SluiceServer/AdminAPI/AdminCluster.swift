import SluiceCluster
import SluiceControl
import SluiceJSON
import SluiceSignaling

/// `GET /api/v1/cluster` (docs/protocol.md section 2): the cluster's nodes and streams as this
/// node last saw them. It reads ClusterMember's cached snapshot and never waits on Redis, so
/// the admin API answers while Redis is away (the body says it is unreachable).
public final class AdminCluster {
    public static let path = "/api/v1/cluster"

    private let authorization: AdminAuthorization
    private let member: ClusterMember?
    private let redis: String?
    /// This node's relay links (control thread, where the router runs): those it serves as an
    /// origin, and those it holds as an edge.
    private let links: () -> (served: [LinkView], held: [String: String])

    public init(adminToken: String, member: ClusterMember?, redis: RedisURL?,
                links: @escaping () -> (served: [LinkView], held: [String: String]) = { ([], [:]) }) {
        authorization = AdminAuthorization(token: adminToken)
        self.member = member
        self.redis = redis?.description
        self.links = links
    }

    public func register(on router: HTTPRouter) {
        router.add(nil, Self.path) { [self] request in
            if let refusal = authorization.refusal(for: request) { return refusal }
            guard request.path == Self.path || request.path == Self.path + "/" else { return .notFound }
            guard request.method == "GET" || request.method == "HEAD" else { return AdminAPI.methodNotAllowed("GET") }
            return .json(body())
        }
    }

    func body() -> JSONValue {
        guard let member else { return ["enabled": false] }
        let snapshot = member.snapshot
        var object: JSONObject = ["enabled": true, "nodeId": .string(member.nodeId)]
        object["redis"] = redis.map { .string($0) } ?? .null
        object["redisReachable"] = .bool(snapshot.redisReachable)
        object["problem"] = snapshot.problem.map { .string($0) } ?? .null
        object["listedAt"] = JSONValue(snapshot.listedAtMs)
        object["nodes"] = .array(snapshot.nodes.map(\.json))
        object["streams"] = .array(snapshot.streams.map(\.json))
        let (served, held) = links()
        object["links"] = [
            "served": .array(served.map { ["link": .string($0.link), "stream": .string($0.stream), "edge": .string($0.edgeNode)] }),
            "held": .array(held.sorted { $0.key < $1.key }.map { ["stream": .string($0.key), "link": .string($0.value)] }),
        ]
        return .object(object)
    }
}
