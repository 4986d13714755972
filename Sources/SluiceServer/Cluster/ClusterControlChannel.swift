import SluiceSignaling

/// How this node speaks to another node's cluster endpoints (`/api/v1/cluster/links` for relay
/// links, `/api/v1/cluster/calls` for calls): `cluster.secret` as the bearer token, a short
/// timeout, and the CA file `https://` nodes are verified against (nil: the system's store).
struct ClusterControlChannel: Sendable {
    let secret: String
    let timeoutMs: Int
    let caFile: String?

    /// One request, blocking: call it on a queue of its own, never the control or signaling
    /// thread. A body goes as JSON.
    func exchange(method: String, url: String, json body: [UInt8]? = nil) -> BlockingHTTPClient.Outcome {
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(secret)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return BlockingHTTPClient.exchange(method: method, url: url, headers: headers, body: body ?? [],
                                           timeoutMs: timeoutMs, caFile: caFile)
    }
}
