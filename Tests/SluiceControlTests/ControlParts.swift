@testable import SluiceControl
import SluiceDataChannel
import SluiceMedia
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// The engine's parts built by hand, as `MediaEngine.init` builds them, for each part's own
/// tests: `workers` workers bound to ephemeral ports on 127.0.0.1 (running, but no packet is
/// sent to a peer), the outbox and the stream registry. A test adds the part it tests over
/// these and reads what its sessions would be told from the outbox.
final class ControlParts {
    static let opus = StreamCodecs(audio: StreamCodec(name: "opus", payloadType: 111, clockRate: 48000, fmtp: ""),
                                   video: nil, layers: 1)

    let config: MediaEngineConfig
    let security: DTLSSecurity
    let pool: WorkerPool
    let outbox = Outbox()
    let registry: StreamRegistry

    init(workers: Int = 1, maxStreams: Int = 1000, maxPlayersPerStream: Int = 500,
         announcedAddresses: [String] = ["127.0.0.1"]) throws {
        config = MediaEngineConfig(bindAddress: SocketAddress(host: "127.0.0.1", port: 0)!, basePort: 0,
                                   workers: workers, announcedAddresses: announcedAddresses, maxStreams: maxStreams,
                                   maxPlayersPerStream: maxPlayersPerStream)
        security = try DTLSSecurity.make(srtp: config.srtp)
        pool = try WorkerPool(config: config, security: security)
        registry = StreamRegistry(pool: pool, outbox: outbox, maxStreams: maxStreams,
                                  maxPlayersPerStream: maxPlayersPerStream)
        pool.start(report: { _ in })
    }

    func stop() { pool.stop() }

    /// A publisher of `stream` with an Opus track.
    @discardableResult
    func publish(_ stream: String, handle: StreamHandle = "pub-1", session: SessionID = "s1",
                 tracks: StreamCodecs? = ControlParts.opus, data: DataChannelPolicy? = nil) -> StreamHandle {
        registry.addPublisher(handle, session: session, stream: stream, worker: 0,
                              tracks: tracks.map(EdgeLinks.tracks) ?? (nil, nil), data: data)
        return handle
    }

    @discardableResult
    func play(_ stream: String, handle: StreamHandle, session: SessionID = "s2", wait: Bool = false,
              dataChannels: Bool = false) -> StreamHandle {
        registry.addPlayer(handle, session: session, stream: stream, wait: wait, worker: 0, dataChannels: dataChannels)
        return handle
    }

    /// Every event queued so far, in order.
    func events() -> [MediaEvent] { outbox.takeAll() }

    /// The (handle, status, info, ends) of each status queued so far.
    func statuses() -> [(handle: StreamHandle, status: StreamStatus, info: String?, ends: Bool)] {
        events().compactMap {
            if case .streamStatus(_, let handle, _, _, let status, let info, let ends) = $0 { return (handle, status, info, ends) }
            return nil
        }
    }

    /// The (handle, type, by, data) of each stream event queued so far.
    func streamEvents() -> [(handle: StreamHandle, type: String, by: String?, data: [String: StreamEventValue])] {
        events().compactMap {
            if case .streamEvent(_, let handle, _, let type, let by, let data) = $0 { return (handle, type, by, data) }
            return nil
        }
    }
}
