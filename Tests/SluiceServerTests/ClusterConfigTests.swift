import SluiceCluster
import Testing
@testable import SluiceServer

/// `cluster`: Redis URL, node id and relay address (docs/cluster.md).
struct ClusterConfigTests {
    @Test func noClusterSectionMeansNoCluster() throws {
        #expect(try parseConfig("{}").cluster == nil)
    }

    @Test func readsTheThreeKeys() throws {
        let config = try parseConfig(#"{"cluster": {"redis": "redis://127.0.0.1:6390/3", "nodeId": "edge-2", "relayAddress": "127.0.0.2:10000"}}"#)
        #expect(config.cluster == ClusterConfig(redis: RedisURL(host: "127.0.0.1", port: 6390, database: 3),
                                                nodeId: "edge-2", relayAddress: "127.0.0.2:10000"))
        let v6 = try parseConfig(#"{"cluster": {"redis": "redis://[::1]", "relayAddress": "[::1]:7000"}}"#)
        #expect(v6.cluster?.relayAddress == "[::1]:7000")
    }

    @Test func defaultsNameTheHostAndPortAndStayOnLoopback() throws {
        let config = try parseConfig(#"{"server": {"port": 8081}, "rtc": {"port": 12000}, "cluster": {"redis": "redis://127.0.0.1"}}"#)
        let cluster = try #require(config.cluster)
        #expect(cluster.nodeId.hasSuffix("-8081"))
        #expect(cluster.nodeId.count <= 64)
        #expect(cluster.relayAddress == "127.0.0.1:12000")
    }

    @Test func theSecretIsOptionalAndLongEnough() throws {
        #expect(try parseConfig(#"{"cluster": {"redis": "redis://h"}}"#).cluster?.secret == nil)
        let config = try parseConfig(#"{"cluster": {"redis": "redis://h", "secret": "0123456789abcdef"}}"#)
        #expect(config.cluster?.secret == "0123456789abcdef")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "secret": "0123456789abcde"}}"#, key: "cluster.secret",
                              problem: "at least 16")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "secret": "0123456789 abcdef"}}"#, key: "cluster.secret",
                              problem: "without spaces")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "secret": "0123456789abcdéf"}}"#, key: "cluster.secret",
                              problem: "visible ASCII")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "secret": 1234567890123456}}"#, key: "cluster.secret",
                              problem: "must be a string")
    }

    @Test func refusesBadValuesNamingTheKey() throws {
        try expectConfigError(#"{"cluster": {}}"#, key: "cluster.redis", problem: "is required")
        try expectConfigError(#"{"cluster": {"redis": "http://127.0.0.1:6379"}}"#, key: "cluster.redis",
                              problem: "must be a redis:// URL")
        try expectConfigError(#"{"cluster": {"redis": "redis://127.0.0.1:99999"}}"#, key: "cluster.redis", problem: "has port")
        try expectConfigError(#"{"cluster": {"redis": 6379}}"#, key: "cluster.redis", problem: "must be a string")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "nodeId": ""}}"#, key: "cluster.nodeId", problem: "must be 1 to 64")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "nodeId": "a b"}}"#, key: "cluster.nodeId", problem: "must be 1 to 64")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "nodeId": "n:1"}}"#, key: "cluster.nodeId", problem: "must be 1 to 64")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "relayAddress": "127.0.0.1"}}"#, key: "cluster.relayAddress",
                              problem: "must be an IP address and port")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "relayAddress": "host.example:1"}}"#, key: "cluster.relayAddress",
                              problem: "must be an IP address and port")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "relayAddress": "127.0.0.1:0"}}"#, key: "cluster.relayAddress",
                              problem: "must be an IP address and port")
        try expectConfigError(#"{"cluster": {"redis": "redis://h", "relay": "x"}}"#, key: "cluster.relay", problem: "is not a known setting")
        try expectConfigError(#"{"cluster": "redis://h"}"#, key: "cluster", problem: "must be an object")
    }
}
