import Glibc
import SluiceWire

/// Where a message goes (docs/protocol.md section 7): a publisher's message to every player
/// of its stream with a channel of the same label; a player's to the publisher (and to the
/// other players when the app allows it). Each receiver gets it with its own channel's
/// reliability, in the order the sender sent. A receiver that cannot take it now (its send
/// buffer is full) loses that message, alone: nobody waits for it. SCTP thread.
extension SCTPStack {
    func forward(from sender: SCTPAssociation, channel sid: UInt16, kind: PayloadProtocol, _ payload: [UInt8], now: UInt64) {
        let endpoint = sender.endpoint
        guard let label = sender.channels[sid]?.open.label else { return }
        let sessionKey = SessionKey(scope: endpoint.scope, session: endpoint.session)
        var limit = limits[sessionKey] ?? SessionRateLimit(messagesPerSecond: endpoint.policy.messagesPerSecond,
                                                           bytesPerSecond: endpoint.policy.bytesPerSecond, now: now)
        let verdict = limit.admit(count: payload.count, now: now)
        limits[sessionKey] = limit
        if case .dropped = verdict {
            if let event = sender.countDrop(sid, reason: .rateLimit, now: now) { endpoint.report(event) }
            return
        }
        guard let group = groups[GroupKey(scope: endpoint.scope, stream: endpoint.stream)] else { return }
        var receivers: [Int] = []
        if endpoint.role == .publish {
            receivers = group.players
        } else {
            if let publisher = group.publisher { receivers.append(publisher) }
            if endpoint.policy.playersReachPlayers { receivers += group.players.filter { $0 != sender.id } }
        }
        let wire = PayloadProtocol.message(binary: kind.isBinary, count: payload.count)
        payload.withUnsafeBytes { bytes in
            for id in receivers {
                guard let receiver = associations[id], receiver.isUp,
                      let channel = receiver.channel(labeled: label) else { continue }
                if payload.count > receiver.endpoint.peerMaxMessageSize {
                    if let event = receiver.countDrop(channel, reason: .tooLarge, now: now) { receiver.endpoint.report(event) }
                    continue
                }
                let error = receiver.send(channel, ppid: wire, bytes)
                if error == 0 {
                    receiver.countSent(channel, bytes: payload.count)
                    continue
                }
                if error != EWOULDBLOCK && error != EAGAIN && error != ENOBUFS && !receiver.loggedSendError {
                    receiver.loggedSendError = true
                    logLine("data channel \(receiver.endpoint.handle): a send on \(label) failed (errno \(error)); counted as backlog",
                            handle: receiver.endpoint.handle)
                }
                if let event = receiver.countDrop(channel, reason: .backlog, now: now) {
                    receiver.endpoint.report(event)
                }
            }
        }
    }
}
