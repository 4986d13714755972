import CUsrsctp
import Glibc
import SluiceTransport
import SluiceVocabulary

/// One handle's SCTP association and its data channels. Lives on the SCTP thread only
/// (`SCTPStack`); usrsctp calls back into it there. The socket is made when the peer's first
/// packet arrives, which is after DTLS connected: then the server starts its side of the
/// association too (both ends of a WebRTC association send INIT; SCTP resolves the
/// collision), and the packet goes in.
final class SCTPAssociation {
    struct Channel {
        var open: DCEPOpen
        var stats: DataChannelStats
    }

    /// A message arriving in pieces (usrsctp delivers a large one as it comes).
    struct Partial {
        var bytes: [UInt8] = []
        var ppid: UInt32 = 0
        /// Over the size limit: the rest of it is skipped, and it is dropped at its end.
        var tooLarge = false
    }

    let id: Int
    let endpoint: DataChannelEndpoint
    let worker: MediaWorker
    weak var transport: WebRTCTransport?
    let inlet: SCTPInlet
    private(set) var socket: OpaquePointer?
    /// usrsctp refused to start it: the peer's packets are dropped from then on.
    private(set) var failed = false
    private var registered = false
    /// usrsctp's name for this association's lower layer: the id as a pointer value.
    var address: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: id)! }

    private(set) var channels: [UInt16: Channel] = [:]
    var assembling: [UInt16: Partial] = [:]
    /// SCTP packets usrsctp wrote for the peer, waiting to go to the worker.
    var outbox: [[UInt8]] = []
    /// Whether the association is up (SCTP_COMM_UP).
    var isUp = false
    /// A send failed for another reason than a full backlog (logged once per association).
    var loggedSendError = false
    /// The stats board needs this handle's channels again.
    var statsChanged = true
    /// Drops by reason, and when each last happened (so each episode is told once).
    private var drops: [DataChannelEvent.DropReason: (count: UInt64, lastMicros: UInt64?)] = [:]

    init(id: Int, endpoint: DataChannelEndpoint, worker: MediaWorker, transport: WebRTCTransport?, inlet: SCTPInlet) {
        self.id = id
        self.endpoint = endpoint
        self.worker = worker
        self.transport = transport
        self.inlet = inlet
    }

    /// The largest SCTP packet: one DTLS record of it must fit the DTLS MTU (1200, DTLSSession's),
    /// whose plaintext limit is the MTU less the record's overhead (37 bytes with AES-GCM, 77 at
    /// most with a CBC suite); OpenSSL refuses a larger write.
    static let packetSize: UInt32 = 1120

    /// Makes the socket and starts the association. Returns 0 or the errno (logged by the caller).
    func start(upcall: sluice_sctp_upcall_fn, sendBuffer: Int32, receiveBuffer: Int32) -> Int32 {
        usrsctp_register_address(address)
        registered = true
        guard let socket = sluice_sctp_socket(upcall, address, sendBuffer, receiveBuffer, Self.packetSize) else {
            failed = true
            return ENOMEM
        }
        self.socket = socket
        let error = sluice_sctp_bind_connect(socket, address, endpoint.localPort, endpoint.remotePort)
        if error != 0 { failed = true }
        return error
    }

    /// Aborts the association (the ABORT lands in `outbox`) and leaves usrsctp.
    func close() {
        if let socket {
            usrsctp_close(socket)
            self.socket = nil
        }
        if registered {
            registered = false
            usrsctp_deregister_address(address)
        }
        channels.removeAll()
        assembling.removeAll()
    }

    /// Starts again from nothing after the peer ended the association (a relay link's origin
    /// end, whose edge may start a new one): the next packet makes a new socket.
    func reset() {
        close()
        failed = false
        isUp = false
        nextOwnStream = 0
    }

    // MARK: Channels

    /// The next stream id this end opens a channel on (a relay link's edge, the DTLS client:
    /// even ids, RFC 8832).
    private var nextOwnStream: UInt16 = 0

    /// Opens a reliable, ordered channel labeled `label` (DCEP `DATA_CHANNEL_OPEN`): the relay
    /// link's edge, for a label its players use. The channel carries messages at once (DCEP:
    /// data may follow the open before its ack). Returns 0 or the errno.
    func openChannel(labeled label: String) -> Int32 {
        guard let socket else { return ENOTCONN }
        let id = nextOwnStream
        let open = DCEPOpen(reliability: .reliableOrdered, label: label)
        let error = DCEPMessage.open(open).bytes.withUnsafeBytes {
            send(socket, id, ppid: PayloadProtocol.dcep.rawValue, reliability: .reliableOrdered, $0)
        }
        guard error == 0 else { return error }
        nextOwnStream &+= 2
        opened(id, open)
        return 0
    }

    /// The open channel with `label` (the lowest id, if the peer opened several).
    func channel(labeled label: String) -> UInt16? {
        var best: UInt16?
        for (id, channel) in channels where channel.open.label == label {
            if best == nil || id < best! { best = id }
        }
        return best
    }

    func opened(_ id: UInt16, _ open: DCEPOpen) {
        channels[id] = Channel(open: open, stats: DataChannelStats(id: id, label: open.label, protocol: open.protocol,
                                                                  reliability: open.reliability))
        statsChanged = true
    }

    func removeChannel(_ id: UInt16) -> Channel? {
        statsChanged = true
        assembling[id] = nil
        return channels.removeValue(forKey: id)
    }

    func removeAllChannels() -> [UInt16: Channel] {
        let all = channels
        channels.removeAll()
        assembling.removeAll()
        statsChanged = true
        return all
    }

    func countReceived(_ id: UInt16, bytes: Int) {
        channels[id]?.stats.messagesReceived += 1
        channels[id]?.stats.bytesReceived += UInt64(bytes)
        statsChanged = true
    }

    func countSent(_ id: UInt16, bytes: Int) {
        channels[id]?.stats.messagesSent += 1
        channels[id]?.stats.bytesSent += UInt64(bytes)
        statsChanged = true
    }

    /// Counts a dropped message on channel `id`; returns the event to tell, once per episode
    /// (no drop of this reason in the second before).
    func countDrop(_ id: UInt16, reason: DataChannelEvent.DropReason, now: UInt64) -> DataChannelEvent? {
        channels[id]?.stats.messagesDropped += 1
        statsChanged = true
        let before = drops[reason] ?? (0, nil)
        drops[reason] = (before.count + 1, now)
        if let last = before.lastMicros, now &- last <= 1_000_000 { return nil }
        return .dropped(handle: endpoint.handle, label: channels[id]?.open.label ?? "", reason: reason,
                        count: before.count + 1)
    }

    var channelStats: [DataChannelStats] { channels.keys.sorted().compactMap { channels[$0]?.stats } }

    // MARK: Sending

    /// At most this many messages wait for one peer (sent and unacknowledged, or unsent),
    /// besides the send buffer's byte bound: each costs usrsctp about 450 bytes whatever its size.
    static let maxQueuedMessages: Int32 = 4096

    /// Sends one message on channel `id` with the channel's reliability. Returns 0 or the errno
    /// (EWOULDBLOCK: the peer's backlog is full).
    func send(_ id: UInt16, ppid: PayloadProtocol, _ payload: UnsafeRawBufferPointer) -> Int32 {
        guard let socket, let channel = channels[id] else { return ENOTCONN }
        if sluice_sctp_queued_chunks(socket) >= Self.maxQueuedMessages { return EWOULDBLOCK }
        return send(socket, id, ppid: ppid.rawValue, reliability: channel.open.reliability, payload)
    }

    /// The DCEP answer on a stream the peer opened.
    func sendAck(_ id: UInt16) -> Int32 {
        guard let socket else { return ENOTCONN }
        return DCEPMessage.ack.bytes.withUnsafeBytes {
            send(socket, id, ppid: PayloadProtocol.dcep.rawValue, reliability: .reliableOrdered, $0)
        }
    }

    private func send(_ socket: OpaquePointer, _ id: UInt16, ppid: UInt32, reliability: ChannelReliability,
                      _ payload: UnsafeRawBufferPointer) -> Int32 {
        let policy: UInt16, value: UInt32
        switch reliability.limit {
        case .reliable: (policy, value) = (UInt16(SCTP_PR_SCTP_NONE), 0)
        case .retransmits(let n): (policy, value) = (UInt16(SCTP_PR_SCTP_RTX), n)
        case .lifetimeMs(let ms): (policy, value) = (UInt16(SCTP_PR_SCTP_TTL), ms)
        }
        return sluice_sctp_send(socket, id, ppid, reliability.ordered ? 0 : 1, policy, value,
                                payload.baseAddress, payload.count)
    }

    /// Closes our outgoing side of stream `id`, after the peer closed its side.
    func resetOutgoing(_ id: UInt16) {
        guard let socket else { return }
        _ = sluice_sctp_reset_stream(socket, id)
    }
}
