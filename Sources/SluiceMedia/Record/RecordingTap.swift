import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// A recording's end on the stream's home worker: one more member of the router's fan-out,
/// beside the consumers, which copies the packets the recording needs into its
/// `RecordingRing`: every audio packet, and the video packets of one layer (by measured
/// size: the top one unless `recording.layer` names another rank; of an SVC stream, the frames
/// of one spatial layer, `RecordingSpatialFilter`). It sees what players
/// see: a muted kind sends nothing, so a mute leaves a gap in the file's timeline.
///
/// Off the packet path, on the worker's tick: it picks the layer once the producer has
/// measured them, and asks the publisher for a key frame when the recorder wants one.
final class RecordingTap: StreamSink, WorkerTickable {
    let publisher: StreamHandle
    let stream: String
    let ring: RecordingRing
    /// The layer asked for, by size rank (`recording.layer`).
    let requestedLayer: RecordedLayer
    /// The video layer copied into the ring; -1 until chosen.
    private(set) var layer = -1
    /// Of an SVC stream (one encoding with spatial layers), the one spatial layer recorded;
    /// touched per packet, so in memory the tap owns (docs/design.md, hot-path rule 8).
    let spatialFilter = OwnedState(RecordingSpatialFilter())

    init(publisher: StreamHandle, stream: String, ring: RecordingRing, layer: RecordedLayer) {
        self.publisher = publisher
        self.stream = stream
        self.ring = ring
        requestedLayer = layer
    }

    @inline(__always)
    override func forward(_ item: borrowing ForwardedPacket) {
        guard item.kind == .audio || item.layer == layer else { return }
        let packet = item.packet
        var sequence = packet.sequenceNumber
        var marker = packet.marker
        if item.kind == .video, let frame = item.dependency, !spatialFilter.pointee.recordsWhole {
            // Until the tick has chosen the spatial layer, no frame of a layered stream.
            guard spatialFilter.pointee.spatial >= 0, let upstream,
                  let admitted = spatialFilter.pointee.admit(frame, packet: packet, upstream: upstream) else { return }
            (sequence, marker) = admitted
        }
        var payload = UnsafeRawBufferPointer(packet.payload)
        var payloadType = packet.payloadType
        // The file holds Opus: a RED packet's primary block only. Its redundant blocks repeat
        // packets the ring had (or lost); each frame is written once.
        if let red = item.red {
            payload = UnsafeRawBufferPointer(rebasing: payload[red.primary.range])
            payloadType = red.primary.payloadType
        }
        _ = ring.push(kind: item.kind, payloadType: payloadType, sequence: sequence,
                      timestamp: packet.timestamp, marker: marker, payload: payload, now: item.now)
    }

    /// The publisher's sender report for `kind` (video: of `layer`).
    override func senderReport(kind: MediaKind, layer: Int, ntp: UInt64, rtpTimestamp: UInt32) {
        guard kind == .audio || layer == self.layer else { return }
        ring.pushClock(kind: kind, ntp: ntp, rtpTimestamp: rtpTimestamp)
    }

    /// The layer it records, for dynacast; every layer until it has chosen one.
    override var wantedVideoLayers: UInt32 { layer < 0 ? .max : LinkLayerRequest.bit(layer) }

    func tick(now: UInt64) {
        guard let upstream else { return }
        if firstTick == 0 { firstTick = now }
        if layer < 0, let chosen = Self.choose(requestedLayer, from: upstream, settled: now >= firstTick + Self.settleMicros) {
            layer = chosen
            upstream.wantedLayersChanged()
            ring.keyFrameWanted.store(true, ordering: .relaxed)
        }
        if layer >= 0, !spatialFilter.pointee.decided, spatialFilter.pointee.choose(requestedLayer, upstream: upstream) {
            // The frames before went nowhere: the file starts at a key picture.
            ring.keyFrameWanted.store(true, ordering: .relaxed)
        }
        guard layer >= 0, ring.keyFrameWanted.exchange(false, ordering: .relaxed) else { return }
        upstream.requestKeyFrame(layer: layer)
    }

    /// When the tap stops waiting for every simulcast layer to show up (a publisher whose top
    /// layer never starts, for want of bandwidth).
    static let settleMicros: UInt64 = 5_000_000
    private var firstTick: UInt64 = 0

    /// The requested rank among the active layers, once every layer is measured and active
    /// (a simulcast encoder starts its top layer last, when its bandwidth estimate allows), or
    /// once `settled`; a single-layer source at once. The choice is kept: a switch would need
    /// the file's video track to start again.
    static func choose(_ requested: RecordedLayer, from stream: any StreamUpstream, settled: Bool) -> Int? {
        guard stream.hasSource else { return nil }
        if !stream.isSimulcast { return 0 }
        let layers = stream.measuredLayers
        let measured = layers.filter { $0.active && $0.width > 0 && $0.height > 0 }
        guard !measured.isEmpty, settled || measured.count == layers.count else { return nil }
        return requested.pick(measured: measured)
    }

    /// The tap is gone: the recorder drains the ring and closes the file.
    func close() {
        ring.closed.store(true, ordering: .releasing)
    }
}
