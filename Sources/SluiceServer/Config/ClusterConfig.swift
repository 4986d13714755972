import Foundation
import SluiceCluster
import SluiceJSON
import SluiceWire

/// `cluster`: this node's place in an origin/edge cluster whose shared state is in Redis
/// (docs/cluster.md). Absent: the server is a single node and needs no Redis.
public struct ClusterConfig: Sendable, Equatable {
    /// `cluster.redis`: where the shared state lives.
    public var redis: RedisURL
    /// `cluster.nodeId`: this node's name in the cluster, unique among its nodes.
    public var nodeId: String
    /// `cluster.relayAddress`: `host:port` other nodes reach this one at.
    public var relayAddress: String
    /// `cluster.secret`: the bearer token of the nodes' control channel (relay links,
    /// docs/cluster.md "Relay links"), the same on every node. nil: this node neither serves
    /// nor asks for links.
    public var secret: String?

    public init(redis: RedisURL, nodeId: String, relayAddress: String, secret: String? = nil) {
        self.redis = redis
        self.nodeId = nodeId
        self.relayAddress = relayAddress
        self.secret = secret
    }

    /// A secret shorter than this is refused: it is all that keeps another host from opening
    /// links (and so reading any stream) on a node.
    static let minimumSecretLength = 16

    /// Letters, digits, `.`, `_`, `-`: the id goes into Redis keys and logs as it is.
    static let nodeIdCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")

    /// `nodeId` defaults to `<hostname>-<server.port>`: stable across restarts (a restarted
    /// node takes back its own claims), and distinct for several nodes on one host as long
    /// as their HTTP ports differ. `relayAddress` defaults to `127.0.0.1:<rtc.port>`
    /// (loopback: set it to an address the other nodes can reach).
    static func parse(_ value: JSONValue, key: String, httpPort: Int, rtcPort: Int) throws(ConfigError) -> ClusterConfig {
        let reader = try ConfigReader(value, path: key, known: ["redis", "nodeId", "relayAddress", "secret"])
        guard reader.object["redis"] != nil else {
            throw ConfigError(key: "\(key).redis", problem: "is required when \(key) is set: a redis://host:port/db URL")
        }
        let text = try reader.string("redis", default: "")
        let redis: RedisURL
        do {
            redis = try RedisURL(parsing: text)
        } catch {
            throw ConfigError(key: "\(key).redis", problem: error.problem)
        }
        let nodeId = try reader.string("nodeId", default: defaultNodeId(httpPort: httpPort))
        if nodeId.isEmpty || nodeId.count > 64 || !nodeId.allSatisfy(nodeIdCharacters.contains) {
            throw ConfigError(key: "\(key).nodeId",
                              problem: "must be 1 to 64 letters, digits, '.', '_' or '-', not \"\(nodeId)\"")
        }
        let relayAddress = try reader.string("relayAddress", default: "127.0.0.1:\(rtcPort)")
        guard relayEndpoint(relayAddress) != nil else {
            throw ConfigError(key: "\(key).relayAddress",
                              problem: "must be an IP address and port (\"10.0.0.2:10000\", \"[fd00::2]:10000\"), not \"\(relayAddress)\"")
        }
        var secret: String?
        if reader.object["secret"] != nil {
            let text = try reader.string("secret", default: "")
            // Counted in bytes: that is what the constant-time check compares. Visible ASCII
            // only: it travels as an Authorization header, which trims spaces and cannot hold
            // control characters or raw UTF-8 safely.
            guard text.utf8.count >= minimumSecretLength, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw ConfigError(key: "\(key).secret",
                                  problem: "must be at least \(minimumSecretLength) visible ASCII characters, without spaces "
                                      + "(the same on every node)")
            }
            secret = text
        }
        return ClusterConfig(redis: redis, nodeId: nodeId, relayAddress: relayAddress, secret: secret)
    }

    /// `host:port` or `[v6]:port` with an IP address and a port from 1 to 65535.
    static func relayEndpoint(_ text: String) -> SocketAddress? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        else if host.contains(":") { return nil }
        guard let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        return SocketAddress(host: host, port: UInt16(port))
    }

    /// The host name, cut to what a node id may hold, and the HTTP port.
    static func defaultNodeId(httpPort: Int) -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
        let cleaned = String(host.filter(nodeIdCharacters.contains).prefix(40))
        return "\(cleaned.isEmpty ? "sluice" : cleaned)-\(httpPort)"
    }
}
