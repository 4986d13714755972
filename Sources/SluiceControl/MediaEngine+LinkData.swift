import SluiceDataChannel
import SluiceMedia
import SluiceVocabulary

/// A stream's data channels across a relay link (docs/cluster.md, "Data across nodes"). The
/// link's own DTLS carries an SCTP association beside its media: on the origin the link is one
/// more player of the stream's data (it gets the publisher's messages of the labels the edge
/// opened, and what it sends goes to the publisher, and to the players when the app lets
/// players reach players); on the edge it is the stream's publisher for the players there.
/// The edge starts the association only while a player here has data channels, so a link
/// whose edge has none carries no data.
extension MediaEngine {
    /// The origin's end: open beside the link when the publisher has data channels, waiting for
    /// the edge. Messages from it were counted against their senders' sessions on the edge, so
    /// it has no rate of its own; it follows the app's rule for players reaching players.
    func originDataEndpoint(handle: StreamHandle, stream: String, policy: DataChannelPolicy?) -> DataChannelEndpoint? {
        guard let policy else { return nil }
        return relayEndpoint(handle: handle, stream: stream, role: .play, relay: .origin,
                             policy: DataChannelPolicy(playersReachPlayers: policy.playersReachPlayers,
                                                       messagesPerSecond: 0, bytesPerSecond: 0))
    }

    /// The edge's end of `stream`'s link: opened once the link's DTLS is up while a player here
    /// has data channels, closed when none is left (the origin's end then waits for another).
    func updateEdgeData(_ stream: String) {
        guard var link = edgeLinkState[stream], let handle = link.handle else { return }
        let wanted = streams[stream]?.players.contains { handles[$0]?.dataChannels == true } ?? false
        guard wanted != link.data else { return }
        link.data = wanted
        edgeLinkState[stream] = link
        let home = workerIndex(for: stream)
        let media = workerStreams[home]
        guard wanted else {
            workers[home].execute {
                media.cancelLinkConnected(handle)
                SCTPStack.shared.close(handle)
            }
            return
        }
        let endpoint = relayEndpoint(handle: handle, stream: stream, role: .publish, relay: .edge,
                                     policy: DataChannelPolicy(messagesPerSecond: 0, bytesPerSecond: 0))
        workers[home].execute {
            media.whenLinkConnected(handle) { transport in SCTPStack.shared.open(endpoint, transport: transport) }
        }
    }

    private func relayEndpoint(handle: StreamHandle, stream: String, role: StreamRole, relay: DataChannelEndpoint.RelayEnd,
                               policy: DataChannelPolicy) -> DataChannelEndpoint {
        var endpoint = DataChannelEndpoint(
            scope: dataChannelScope, handle: handle, session: handle, stream: stream, role: role,
            localPort: 5000, remotePort: 5000, maxMessageSize: Self.relayMessageBytes,
            remoteMaxMessageSize: Self.relayMessageBytes, policy: policy,
            // A link is no session: its channels open and close with no one to tell.
            report: { _ in })
        endpoint.relay = relay
        return endpoint
    }

    /// What a link's association takes in one message: a client's limit (docs/protocol.md
    /// section 6, **Data channels**), so whatever reaches one node crosses to another.
    static let relayMessageBytes = 262_144
}
