import SluiceDataChannel
import SluiceMedia
import SluiceSDP
import SluiceVocabulary

/// Data channels (docs/protocol.md section 7): a publish or play whose offer carried an
/// accepted `webrtc-datachannel` m-line gets an endpoint in the SCTP stack, opened on its
/// transport's worker once the transport exists, closed when the handle ends. The stack's
/// events come back here as `streamEvent`s.
extension MediaEngine {
    func dataChannelEndpoint(_ negotiated: NegotiatedDataChannel?, policy: DataChannelPolicy?, handle: StreamHandle,
                             session: SessionID, stream: String, role: StreamRole) -> DataChannelEndpoint? {
        guard let negotiated, let policy,
              let local = UInt16(exactly: negotiated.localSCTPPort), let remote = UInt16(exactly: negotiated.remoteSCTPPort)
        else { return nil }
        return DataChannelEndpoint(
            scope: dataChannelScope, handle: handle, session: session, stream: stream, role: role,
            localPort: local, remotePort: remote, maxMessageSize: negotiated.localMaxMessageSize,
            remoteMaxMessageSize: negotiated.remoteMaxMessageSize, policy: policy,
            report: { [weak self] event in
                guard let self else { return }
                self.dataChannelEvents.withLock { $0.append(event) }
                self.wakeup()
            })
    }

    /// On the handle's worker, right after its transport was made.
    static func openDataChannels(_ endpoint: DataChannelEndpoint?, on media: WorkerStreams, handle: StreamHandle) {
        guard let endpoint, let transport = media.transport(of: handle) else { return }
        SCTPStack.shared.open(endpoint, transport: transport)
    }

    func dataChannelEvent(_ event: DataChannelEvent) {
        emitEvent(event.handle, EventWords.dataChannel(event))
    }

    /// The handle's data channels and their counters (for getStats).
    public func dataChannelStats(handle: StreamHandle) -> [DataChannelStats] {
        guard handles[handle] != nil else { return [] }
        return SCTPStack.shared.stats(for: handle)
    }

    /// Every handle's data channels, with its stream and role (for /metrics).
    public func allDataChannelStats() -> [(handle: StreamHandle, stream: String, role: StreamRole, channels: [DataChannelStats])] {
        handles.keys.sorted().compactMap { handle in
            guard let entry = handles[handle] else { return nil }
            let channels = SCTPStack.shared.stats(for: handle)
            return channels.isEmpty ? nil : (handle, entry.stream, entry.role, channels)
        }
    }
}

extension DataChannelEvent {
    var handle: StreamHandle {
        switch self {
        case .opened(let handle, _, _), .closed(let handle, _, _), .dropped(let handle, _, _, _): return handle
        }
    }
}
