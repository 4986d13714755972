import SluiceDataChannel
import SluiceMedia
import SluiceSDP
import SluiceVocabulary
import Synchronization

/// Data channels (docs/protocol.md section 7): a publish or play whose offer carried an
/// accepted `webrtc-datachannel` m-line gets an endpoint in the SCTP stack, opened on its
/// transport's worker once the transport exists, closed when the handle ends. The stack's
/// events come back here as `streamEvent`s. A relay link's association (`OriginLinks`,
/// `EdgeLinks`) is an endpoint of the same stack, made here too. Control thread, but for `open`.
final class DataChannelRoutes {
    /// This engine's `DataChannelEndpoint.scope`: the stack serves every server in the process.
    let scope = DataChannelRoutes.nextScope.add(1, ordering: .relaxed).oldValue
    private static let nextScope = Atomic<Int>(1)
    /// Filled by the data channel stack's thread.
    private let events: Inbox<DataChannelEvent>
    private let registry: StreamRegistry

    /// What a link's association takes in one message: a client's limit (docs/protocol.md
    /// section 6, **Data channels**), so whatever reaches one node crosses to another.
    static let relayMessageBytes = 262_144

    init(registry: StreamRegistry, outbox: Outbox) {
        self.registry = registry
        events = Inbox(wake: { [weak outbox] in outbox?.wake() })
    }

    /// A client's endpoint: nil when its offer had no data channel or its app allows none.
    func endpoint(_ negotiated: NegotiatedDataChannel?, policy: DataChannelPolicy?, handle: StreamHandle,
                  session: SessionID, stream: String, role: StreamRole) -> DataChannelEndpoint? {
        guard let negotiated, let policy,
              let local = UInt16(exactly: negotiated.localSCTPPort), let remote = UInt16(exactly: negotiated.remoteSCTPPort)
        else { return nil }
        return DataChannelEndpoint(
            scope: scope, handle: handle, session: session, stream: stream, role: role,
            localPort: local, remotePort: remote, maxMessageSize: negotiated.localMaxMessageSize,
            remoteMaxMessageSize: negotiated.remoteMaxMessageSize, policy: policy,
            // Strong: the queue holds nothing back, and a weak reference here leaves its side
            // table to the SCTP stack's associations, which outlive the engine (valgrind counts
            // it lost at exit).
            report: { [events] event in events.push(event) })
    }

    /// A relay link's end of a stream's data (`relay`: which end this node is).
    func relayEndpoint(handle: StreamHandle, stream: String, role: StreamRole, relay: DataChannelEndpoint.RelayEnd,
                       policy: DataChannelPolicy) -> DataChannelEndpoint {
        var endpoint = DataChannelEndpoint(
            scope: scope, handle: handle, session: handle, stream: stream, role: role,
            localPort: 5000, remotePort: 5000, maxMessageSize: Self.relayMessageBytes,
            remoteMaxMessageSize: Self.relayMessageBytes, policy: policy,
            // A link is no session: its channels open and close with no one to tell.
            report: { _ in })
        endpoint.relay = relay
        return endpoint
    }

    /// On the handle's worker, right after its transport was made.
    static func open(_ endpoint: DataChannelEndpoint?, on media: WorkerStreams, handle: StreamHandle) {
        guard let endpoint, let transport = media.transport(of: handle) else { return }
        SCTPStack.shared.open(endpoint, transport: transport)
    }

    /// From `drainEvents`: the stack's events, to their handles' sessions.
    func drainEvents() {
        for event in events.takeAll() { registry.emitEvent(event.handle, EventWords.dataChannel(event)) }
    }

    /// The handle's data channels and their counters (for getStats).
    func stats(handle: StreamHandle) -> [DataChannelStats] {
        guard registry.contains(handle) else { return [] }
        return SCTPStack.shared.stats(for: handle)
    }

    /// Every handle's data channels, with its stream and role (for /metrics).
    func allStats() -> [(handle: StreamHandle, stream: String, role: StreamRole, channels: [DataChannelStats])] {
        registry.handleRoles().compactMap { handle, stream, role in
            let channels = SCTPStack.shared.stats(for: handle)
            return channels.isEmpty ? nil : (handle, stream, role, channels)
        }
    }

    /// The stack's tables for this engine's scope (waits up to `timeout` for its thread).
    func stackTableSizes(timeout: Double) -> [String: Int] {
        SCTPStack.shared.tableSizes(scope: scope, timeout: timeout)
    }

    var queuedEvents: Int { events.count }
}

extension DataChannelEvent {
    var handle: StreamHandle {
        switch self {
        case .opened(let handle, _, _), .closed(let handle, _, _), .dropped(let handle, _, _, _): return handle
        }
    }
}
