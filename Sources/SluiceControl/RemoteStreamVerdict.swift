import SluiceVocabulary

/// What a check of the cluster's registry makes of one stream this node has players of and no
/// publisher for (`MediaEngine.checkRemoteStreams`). A pure decision, so the choice of a
/// player's info is tested without a cluster.
enum RemoteStreamVerdict: Equatable {
    /// Another node publishes it: its players are (or stay) fed over a link from `origin`.
    case relay(codecs: StreamCodecs, origin: String?)
    /// The stream this node relayed is gone: its players get UNPUBLISHED with `info`, the
    /// waiting ones stay for a new publisher.
    case end(info: String)
    /// Nothing to do now: not relayed and no node publishes it (waiting players wait on), or
    /// the registry is just back from an outage and may not list every live stream yet.
    case hold

    /// - Parameters:
    ///   - relayedFrom: the origin node this node relays the stream from, if it does.
    ///   - current: the stream's codecs and origin in the registry now, when another live
    ///     node publishes it.
    ///   - settled: whether the registry has been reachable long enough to trust an absence.
    ///   - isAlive: whether a node's heartbeat record is in the registry's live node list.
    ///
    /// A relayed stream ends with "Stopped by origin node loss" when its origin node is no
    /// longer alive (killed, or cut off from Redis), and with "Stopped by publisher stop"
    /// when the origin is alive and no longer publishes it (its publisher ended, however).
    /// When the name is published by another node than the one relayed from (the old origin's
    /// claim went before this node saw it go), the old stream ends first, for the same two
    /// reasons; the next check relays the new one to the players that wait.
    static func decide(relaying: Bool, relayedFrom: String?, current: (codecs: StreamCodecs, origin: String?)?,
                       settled: Bool, isAlive: (String) -> Bool) -> RemoteStreamVerdict {
        if let current {
            if relaying, let old = relayedFrom, let new = current.origin, new != old {
                return .end(info: isAlive(old) ? StatusInfo.publisherStop : StatusInfo.originNodeLoss)
            }
            return .relay(codecs: current.codecs, origin: current.origin)
        }
        guard relaying, settled else { return .hold }
        if let old = relayedFrom, !isAlive(old) { return .end(info: StatusInfo.originNodeLoss) }
        return .end(info: StatusInfo.publisherStop)
    }
}
