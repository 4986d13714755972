import CUsrsctp
import Glibc
import SluiceWire

/// Reading what usrsctp delivered: notifications (the association's state, streams the peer
/// closed), DCEP, and messages, reassembled from the pieces usrsctp hands out. SCTP thread.
extension SCTPStack {
    /// Reads every association usrsctp marked, until nothing is left (forwarding a message
    /// can make more readable: usrsctp processes SACKs as it sends).
    func readAll() {
        while let id = readable.popFirst() {
            guard let association = associations[id] else { continue }
            read(association)
        }
    }

    private func read(_ association: SCTPAssociation) {
        guard let socket = association.socket else { return }
        while association.socket != nil {
            let (received, piece) = scratch.withUnsafeMutableBytes { buffer -> (sluice_sctp_received, [UInt8]) in
                let received = sluice_sctp_receive(socket, buffer.baseAddress, buffer.count)
                guard received.length > 0 else { return (received, []) }
                return (received, Array(buffer[0..<Int(received.length)]))
            }
            if received.length < 0 { return }  // EWOULDBLOCK: all read
            if received.length == 0 { continue }
            if received.notification != 0 {
                notification(association, piece)
            } else {
                assemble(association, received, piece)
            }
        }
    }

    private func assemble(_ association: SCTPAssociation, _ received: sluice_sctp_received, _ piece: [UInt8]) {
        let sid = received.sid
        var partial = association.assembling[sid] ?? SCTPAssociation.Partial()
        partial.ppid = received.ppid
        if !partial.tooLarge {
            if partial.bytes.count + piece.count > association.endpoint.maxMessageSize {
                partial.tooLarge = true
                partial.bytes = []
            } else {
                partial.bytes += piece
            }
        }
        guard received.end_of_record != 0 else {
            association.assembling[sid] = partial
            return
        }
        association.assembling[sid] = nil
        let now = MonotonicClock.nowMicros()
        if partial.tooLarge {
            if let event = association.countDrop(sid, reason: .tooLarge, now: now) { association.endpoint.report(event) }
            return
        }
        message(association, sid: sid, ppid: partial.ppid, partial.bytes, now: now)
    }

    private func message(_ association: SCTPAssociation, sid: UInt16, ppid: UInt32, _ bytes: [UInt8], now: UInt64) {
        guard let kind = PayloadProtocol(rawValue: ppid) else { return }  // deprecated partial PPIDs, unknown
        if kind == .dcep {
            dcep(association, sid: sid, bytes)
            return
        }
        guard association.channels[sid] != nil else { return }  // no DCEP open on it (or negotiated out of band)
        let payload = kind.isEmpty ? [] : bytes
        association.countReceived(sid, bytes: payload.count)
        forward(from: association, channel: sid, kind: kind, payload, now: now)
    }

    private func dcep(_ association: SCTPAssociation, sid: UInt16, _ bytes: [UInt8]) {
        let parsed: DCEPMessage
        do {
            parsed = try bytes.withUnsafeBytes { try DCEPMessage(parsing: $0) }
        } catch {
            logLine("data channel \(association.endpoint.handle): \(error); stream \(sid) ignored",
                    handle: association.endpoint.handle)
            return
        }
        guard case .open(let open) = parsed else { return }  // an ack: the server opens no channel
        let error = association.sendAck(sid)
        guard error == 0 else {
            logLine("data channel \(association.endpoint.handle): the DCEP ack on stream \(sid) failed (errno \(error))",
                    handle: association.endpoint.handle)
            return
        }
        association.opened(sid, open)
        association.endpoint.report(.opened(handle: association.endpoint.handle, label: open.label, id: sid))
        relayLabels(of: association)
    }

    private func notification(_ association: SCTPAssociation, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            switch Int32(sluice_sctp_notification_type(raw.baseAddress, raw.count)) {
            case Int32(SCTP_ASSOC_CHANGE):
                switch Int32(sluice_sctp_assoc_change_state(raw.baseAddress, raw.count)) {
                case Int32(SCTP_COMM_UP):
                    association.isUp = true
                    relayLabels(of: association)
                case Int32(SCTP_COMM_LOST), Int32(SCTP_SHUTDOWN_COMP), Int32(SCTP_CANT_STR_ASSOC):
                    association.isUp = false
                    for (sid, channel) in association.removeAllChannels() {
                        association.endpoint.report(.closed(handle: association.endpoint.handle,
                                                            label: channel.open.label, id: sid))
                    }
                    // A relay link's origin end waits for its edge's next association.
                    if association.endpoint.relay == .origin { association.reset() }
                default:
                    break
                }
            case Int32(SCTP_STREAM_RESET_EVENT):
                let flags = Int32(sluice_sctp_reset_flags(raw.baseAddress, raw.count))
                // The peer reset its outgoing streams: it closed those channels. Close ours.
                guard flags & Int32(SCTP_STREAM_RESET_INCOMING_SSN) != 0,
                      flags & Int32(SCTP_STREAM_RESET_DENIED | SCTP_STREAM_RESET_FAILED) == 0 else { return }
                for index in 0..<sluice_sctp_reset_count(raw.baseAddress, raw.count) {
                    let sid = sluice_sctp_reset_stream_id(raw.baseAddress, index)
                    guard let channel = association.removeChannel(sid) else { continue }
                    association.resetOutgoing(sid)
                    association.endpoint.report(.closed(handle: association.endpoint.handle,
                                                        label: channel.open.label, id: sid))
                }
            default:
                break
            }
        }
    }
}
