/// A stream's data across a relay link (docs/cluster.md, "Data across nodes"). On the edge the
/// link's association stands for the stream's publisher: it opens, towards the origin, a
/// channel for each label the edge's players opened, so the origin forwards the publisher's
/// messages of that label to it as to a player of its own, and the edge's players' messages of
/// that label go back on it. A label no player here uses is not opened, so the origin sends
/// nothing of it. SCTP thread.
extension SCTPStack {
    /// After `association` changed (it came up, or a player's channel opened): the edge link
    /// of its group opens the labels its players use that it has not opened yet.
    func relayLabels(of association: SCTPAssociation) {
        let endpoint = association.endpoint
        guard let group = groups[GroupKey(scope: endpoint.scope, stream: endpoint.stream)],
              let id = group.publisher, let relay = associations[id], relay.endpoint.relay == .edge, relay.isUp else { return }
        var wanted = Set<String>()
        for player in group.players {
            guard let channels = associations[player]?.channels.values else { continue }
            for channel in channels { wanted.insert(channel.open.label) }
        }
        for label in wanted.sorted() where relay.channel(labeled: label) == nil {
            let error = relay.openChannel(labeled: label)
            if error != 0 {
                logLine("data channel \(relay.endpoint.handle): opening \(label) on the relay link failed (errno \(error))",
                        handle: relay.endpoint.handle)
            }
        }
        toFlush.insert(relay.id)
    }
}
