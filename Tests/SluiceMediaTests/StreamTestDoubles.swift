import SluiceRTP
import SluiceVocabulary
import SluiceWire
@testable import SluiceMedia

/// A stream source for the router and consumer tests: fixed layers, packets stored as the
/// test puts them, and every key-frame request it is handed, in order.
final class TestSource: StreamSource {
    weak var router: Router?
    var layers: [LayerSelector.Layer]
    /// What the router handed over, one entry per call.
    private(set) var requests: [KeyFrameRequests] = []
    private var stored: [Int: [UInt16: UnsafeMutableRawBufferPointer]] = [:]
    /// When the source calls `requestKeyFrames` from inside a fan-out, the test fails: the
    /// router must queue until the call returns.
    var forwarding = false
    private(set) var reentered = false

    init(layers: [LayerSelector.Layer]) { self.layers = layers }

    deinit {
        for packets in stored.values { for buffer in packets.values { buffer.deallocate() } }
    }

    var isSimulcast: Bool { layers.count > 1 }
    var dependencyDescriptorID: UInt8?
    var spatial: [LayerSelector.Layer] = []
    var targets: DependencyTargets?
    func spatialLayers(now: UInt64) -> [LayerSelector.Layer] { spatial }
    func dependencyTargets() -> DependencyTargets? { targets }
    func selectorLayers(now: UInt64) -> [LayerSelector.Layer] { layers }
    func layerTiming(_ layer: Int) -> (fps: Double, temporalLayers: Int) { (30, 1) }
    func layerSize(_ layer: Int) -> (width: Int, height: Int) {
        layers.indices.contains(layer) ? (layers[layer].width, layers[layer].height) : (0, 0)
    }
    func layerStats(now: UInt64) -> [LayerStats] { [] }
    func captureMicros(layer: Int, timestamp: UInt32) -> Int64? { nil }
    /// The (layer, source sequence) of each stored packet asked for (a retransmission).
    private(set) var storedAsked: [(layer: Int, sequence: UInt16)] = []
    func storedPacket(layer: Int, sequence: UInt16) -> UnsafeMutableRawBufferPointer? {
        storedAsked.append((layer, sequence))
        return stored[layer]?[sequence]
    }
    func requestKeyFrames(_ requests: KeyFrameRequests) {
        if forwarding { reentered = true }
        if !requests.isEmpty { self.requests.append(requests) }
    }
    func snapshot(now: UInt64) -> SourceSnapshot { SourceSnapshot() }

    /// Keeps a copy of `bytes`, as a producer's retransmission buffer would.
    func store(_ bytes: [UInt8], layer: Int, sequence: UInt16) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
        buffer.copyBytes(from: bytes)
        stored[layer, default: [:]][sequence]?.deallocate()
        stored[layer, default: [:]][sequence] = buffer
    }

    /// One packet through the router, as a producer hands it: returns what the sinks asked for.
    func forward(_ bytes: [UInt8], kind: MediaKind = .video, layer: Int = 0, keyFrame: Bool = false,
                 now: UInt64 = 1_000) -> KeyFrameRequests {
        var copy = bytes
        return copy.withUnsafeMutableBytes { raw in
            let packet = RTPPacket(parsing: raw)!
            let vp8 = kind == .video ? VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(packet.payload)) : nil
            forwarding = true
            defer { forwarding = false }
            return router!.forward(ForwardedPacket(packet: packet, kind: kind, layer: layer, isKeyFrame: keyFrame,
                                                   temporalLayer: vp8?.temporalLayerIndex, vp8: vp8,
                                                   clockRate: kind == .video ? 90_000 : 48_000, audioLevel: nil,
                                                   now: now))
        }
    }
}

/// A sink that keeps what it was given, and may ask for a key frame from inside the fan-out.
final class TestSink: StreamSink {
    private(set) var sequences: [UInt16] = []
    /// Layer and key-frame flag of each packet, as the source described it.
    private(set) var described: [(layer: Int, keyFrame: Bool)] = []
    private(set) var presence: [Bool] = []
    private(set) var measured = 0
    private(set) var mutes: [MediaKind] = []
    private(set) var reports: [(kind: MediaKind, layer: Int)] = []
    var wanted: UInt32 = 0
    /// Asked of the upstream for every packet: nil asks nothing.
    var requestOnPacket: Int??

    override func forward(_ packet: borrowing ForwardedPacket) {
        sequences.append(packet.packet.sequenceNumber)
        described.append((packet.layer, packet.isKeyFrame))
        if let layer = requestOnPacket { upstream?.requestKeyFrame(layer: layer) }
    }
    override func sourceChanged(present: Bool) { presence.append(present) }
    override func streamMuteChanged(_ kind: MediaKind) { mutes.append(kind) }
    override func layersMeasured(now: UInt64) {
        measured += 1
        if let layer = requestOnPacket { upstream?.requestKeyFrame(layer: layer) }
    }
    override func senderReport(kind: MediaKind, layer: Int, ntp: UInt64, rtpTimestamp: UInt32) {
        reports.append((kind, layer))
    }
    override var wantedVideoLayers: UInt32 { wanted }
}

/// Three layers as Chromium sends them for a 1280x720 camera (q, h, f).
let threeLayers = [
    LayerSelector.Layer(index: 0, width: 320, height: 180, fps: 30, bitrateKbps: 150),
    LayerSelector.Layer(index: 1, width: 640, height: 360, fps: 30, bitrateKbps: 500),
    LayerSelector.Layer(index: 2, width: 1280, height: 720, fps: 30, bitrateKbps: 1500),
]
