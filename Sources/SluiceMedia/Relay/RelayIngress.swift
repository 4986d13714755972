import SluiceRTP
import SluiceTransport
import SluiceWire

/// A stream's source on a worker other than its home (the worker that receives it): it
/// feeds this worker's router with the packets the home hands over (`WorkerRelay`), answers
/// the router's reads from the home's last `SourceSnapshot`, keeps references to the packets
/// for its players' NACKs, and sends their key-frame requests home, coalesced.
///
/// Worker thread only, like the router it feeds.
final class RelayIngress: StreamSource, WorkerTickable {
    /// Requests from this worker's players reach the home at most this often; the home's
    /// producer gates them per layer again (`KeyFrameRequestGate`), so a layer is asked once
    /// however many workers relay it.
    static let requestSpacingMicros: UInt64 = 20_000

    let stream: String
    let key: RelayKey
    let home: Int
    weak var router: Router?
    /// The home worker's buffers, which the packets live in.
    let homePackets: SharedPackets
    private let sendHome: (KeyFrameRequests) -> Void
    /// Tells the home the video layers this worker's players need (a relay link's edge asks
    /// its origin for the union; docs/cluster.md, "Layers on a link").
    var sendWanted: (UInt32) -> Void = { _ in }
    private var sentWanted: UInt32?
    private(set) var snapshot = SourceSnapshot()

    /// Touched per packet, in memory the ingress owns (docs/design.md hot-path rule 8).
    private struct PacketState {
        var retransmissions: [RelayedRetransmissions] = []
        var pending = KeyFrameRequests()
        var lastRequestMicros: UInt64 = 0
    }
    private let state = OwnedState(PacketState())

    init(stream: String, key: RelayKey, home: Int, homePackets: SharedPackets,
         sendHome: @escaping (KeyFrameRequests) -> Void) {
        self.stream = stream
        self.key = key
        self.home = home
        self.homePackets = homePackets
        self.sendHome = sendHome
    }

    var isAttached: Bool { router != nil }

    /// One packet from the home, whose reference this ingress now holds.
    @inline(__always)
    func deliver(_ entry: RelayEntry, now: UInt64) {
        let bytes = homePackets.bytes(entry.buffer, count: Int(entry.length))
        guard let router, let packet = RTPPacket(parsing: bytes) else {
            homePackets.releaseRemote(entry.buffer)
            return
        }
        let layer = Int(entry.layer)
        // Kept before the fan-out, as the home's producer stores before its own: a player that
        // catches up from the cache (instant join) reads this very packet from here.
        let kept = entry.kind == .video && layer < state.retransmissions.count
        if kept {
            state.retransmissions[layer].keep(entry.buffer, length: entry.length, sequence: packet.sequenceNumber,
                                              home: homePackets)
        }
        let vp8 = entry.flags & RelayEntry.vp8 != 0 ? VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(packet.payload)) : nil
        var item = ForwardedPacket(
            packet: packet, kind: entry.kind, layer: layer, isKeyFrame: entry.flags & RelayEntry.keyFrame != 0,
            temporalLayer: entry.flags & RelayEntry.hasTemporalLayer != 0 ? entry.temporalLayer : nil, vp8: vp8,
            clockRate: entry.clockRate, audioLevel: entry.flags & RelayEntry.hasAudioLevel != 0 ? entry.audioLevel : nil,
            now: now)
        item.dependency = entry.dependency
        if entry.flags & RelayEntry.red != 0 {
            item.red = REDPayload(parsing: UnsafeRawBufferPointer(packet.payload), redPayloadType: packet.payloadType)
        }
        let requests = router.forward(item)
        if !requests.isEmpty { requestKeyFrames(requests) }
        if !kept { homePackets.releaseRemote(entry.buffer) }
    }

    /// The home's news of the source (the router is told by `WorkerStreams`).
    func apply(_ snapshot: SourceSnapshot) {
        self.snapshot = snapshot
        while state.retransmissions.count < snapshot.layers.count {
            state.retransmissions.append(RelayedRetransmissions())
        }
    }

    /// Gives every packet reference back (the ingress is going away, or its publisher did).
    func releasePackets() {
        for i in state.retransmissions.indices { state.retransmissions[i].releaseAll(home: homePackets) }
    }

    // MARK: StreamSource

    var isSimulcast: Bool { snapshot.isSimulcast }
    var dependencyDescriptorID: UInt8? { snapshot.dependencyDescriptorID }

    func selectorLayers(now: UInt64) -> [LayerSelector.Layer] { snapshot.layers.map(\.selector) }
    func spatialLayers(now: UInt64) -> [LayerSelector.Layer] { snapshot.spatialLayers }
    func dependencyTargets() -> DependencyTargets? { snapshot.dependencyTargets }

    func layerTiming(_ layer: Int) -> (fps: Double, temporalLayers: Int) {
        snapshot.layers.indices.contains(layer) ? (snapshot.layers[layer].fps, snapshot.layers[layer].temporalLayers) : (0, 1)
    }

    func layerSize(_ layer: Int) -> (width: Int, height: Int) {
        snapshot.layers.indices.contains(layer)
            ? (snapshot.layers[layer].selector.width, snapshot.layers[layer].selector.height) : (0, 0)
    }

    func layerStats(now: UInt64) -> [LayerStats] { snapshot.layers.map(\.stats) }

    /// As the producer computes it, from the sender report the snapshot carried.
    func captureMicros(layer: Int, timestamp: UInt32) -> Int64? {
        guard snapshot.layers.indices.contains(layer), snapshot.layers[layer].senderReportMicros > 0 else { return nil }
        let entry = snapshot.layers[layer]
        let delta = Int64(Int32(bitPattern: timestamp &- entry.senderReportRTP))
        return Int64(entry.senderReportMicros) + delta * 1_000_000 / Int64(max(1, snapshot.clockRate))
    }

    func storedPacket(layer: Int, sequence: UInt16) -> UnsafeMutableRawBufferPointer? {
        guard state.retransmissions.indices.contains(layer) else { return nil }
        return state.retransmissions[layer].packet(sequence: sequence, home: homePackets)
    }

    /// Coalesced: at most one message home per `requestSpacingMicros`; the rest wait for the
    /// next tick.
    /// A relaying worker relays to no other: what it last heard from the home.
    func snapshot(now: UInt64) -> SourceSnapshot { snapshot }

    func requestKeyFrames(_ requests: KeyFrameRequests) {
        state.pending.merge(requests)
        flushRequests(now: MonotonicClock.nowMicros())
    }

    func tick(now: UInt64) {
        reportWanted()
        if !state.pending.isEmpty { flushRequests(now: now) }
    }

    /// The players' need of layers, home when it changed: before any key-frame request that
    /// follows from it, through the same inbox, so the home asks for the layer first.
    private func reportWanted() {
        guard let router, router.takeWantedLayersChanged() else { return }
        let mask = router.wantedVideoLayers()
        guard mask != sentWanted else { return }
        sentWanted = mask
        sendWanted(mask)
    }

    private func flushRequests(now: UInt64) {
        reportWanted()
        guard now &- state.lastRequestMicros >= Self.requestSpacingMicros else { return }
        state.lastRequestMicros = now
        let requests = state.pending
        state.pending = KeyFrameRequests()
        sendHome(requests)
    }
}
