#if canImport(SluiceTransport)
import SluiceClient
import SluiceWire
import Synchronization

/// Drives a publishing `PeerConnection` from synthetic sources: on every worker tick it sends
/// the VP8 frames and Opus packets that are due, each packet written straight into a pool
/// buffer, and it answers PLI and FIR with a key frame. Set it as the connection's delegate
/// (it forwards nothing else). Worker thread only, except `stats` (racy reads are fine for
/// progress lines).
///
/// Simulcast: `init(simulcast:)` takes one source per layer, lowest first, for a connection
/// made with as many `simulcastLayers`; layer i goes out on the connection's layer i.
public final class SyntheticPublisher: PeerConnectionDelegate {
    /// The single video layer; nil with simulcast (see `layers`) or without video.
    public var video: SyntheticVP8Source? {
        get { layers.count == 1 && !isSimulcast ? layers[0] : nil }
        set {
            isSimulcast = false
            layers = newValue.map { [$0] } ?? []
        }
    }
    /// Video sources by simulcast layer, lowest first (one without simulcast).
    public private(set) var layers: [SyntheticVP8Source] {
        didSet { dependencies = Self.descriptors(layers) }
    }
    /// Each layer's dependency descriptor, sent when the connection was answered it.
    private var dependencies: [SyntheticDependencyDescriptor] = []
    public var audio: SyntheticOpusSource?
    /// Frames or audio packets the connection could not send (pool empty, not connected).
    public private(set) var sendFailures: UInt64 = 0
    /// PLIs and FIRs received, any layer; readable from any thread.
    public let keyFrameRequests = Atomic<UInt64>(0)
    /// While set, nothing is sent (a camera that stalled); readable and settable from any thread.
    public let paused = Atomic<Bool>(false)
    /// Set from any thread: the next frame of each layer is a key frame (as after a PLI, but
    /// not counted as one).
    public let keyFrameWanted = Atomic<Bool>(false)
    /// Video frames sent, any layer; readable from any thread.
    public let framesSent = Atomic<UInt64>(0)
    private var isSimulcast: Bool

    public init(video: SyntheticVP8Source.Configuration? = .init(), audio: Bool = true, audioPacketSize: Int = 100) {
        layers = video.map { [SyntheticVP8Source($0)] } ?? []
        isSimulcast = false
        dependencies = Self.descriptors(layers)
        self.audio = audio ? SyntheticOpusSource(packetSize: audioPacketSize) : nil
    }

    /// One video source per simulcast layer, lowest first.
    public init(simulcast: [SyntheticVP8Source.Configuration], audio: Bool = true, audioPacketSize: Int = 100) {
        layers = simulcast.map(SyntheticVP8Source.init)
        isSimulcast = true
        dependencies = Self.descriptors(layers)
        self.audio = audio ? SyntheticOpusSource(packetSize: audioPacketSize) : nil
    }

    public func peerConnection(_ connection: PeerConnection, tick now: UInt64) {
        if paused.load(ordering: .relaxed) { return }
        if keyFrameWanted.exchange(false, ordering: .relaxed) {
            for layer in layers.indices { layers[layer].requestKeyFrame() }
        }
        for layer in layers.indices {
            while let frame = layers[layer].nextFrame(now: now) {
                framesSent.add(1, ordering: .relaxed)
                let describes = connection.sendsDependencyDescriptor
                if describes { dependencies[layer].nextFrame(keyFrame: frame.isKeyFrame) }
                for index in 0..<frame.packetCount {
                    let sent = describes
                        ? dependencies[layer].withPacket(first: index == 0, last: frame.isLastPacket(index)) { dependency in
                            Self.send(frame, index, layer: layer, on: connection, now: now, dependency: dependency)
                        }
                        : Self.send(frame, index, layer: layer, on: connection, now: now, dependency: nil)
                    if !sent { sendFailures += 1 }
                }
            }
        }
        if audio != nil {
            while let timestamp = audio?.nextPacket(now: now), let source = audio {
                let red = connection.sendsAudioRED
                let sent = connection.send(.audio, marker: false, timestamp: timestamp, now: now) { payload in
                    red ? source.writeREDPacket(into: payload, sendTime: MonotonicClock.nowMicros(),
                                                opusPayloadType: UInt8(ClientOffer.opusPayloadType))
                        : source.writePacket(into: payload, sendTime: MonotonicClock.nowMicros())
                }
                if !sent { sendFailures += 1 }
            }
        }
    }

    private static func descriptors(_ layers: [SyntheticVP8Source]) -> [SyntheticDependencyDescriptor] {
        layers.map { SyntheticDependencyDescriptor(width: $0.configuration.width, height: $0.configuration.height) }
    }

    private static func send(_ frame: SyntheticVP8Frame, _ index: Int, layer: Int, on connection: PeerConnection, now: UInt64,
                             dependency: UnsafeRawBufferPointer?) -> Bool {
        connection.send(.video, layer: layer, marker: frame.isLastPacket(index), timestamp: frame.rtpTimestamp, now: now,
                        dependency: dependency) { payload in
            frame.writePacket(index, into: payload, sendTime: MonotonicClock.nowMicros())
        }
    }

    public func peerConnection(_ connection: PeerConnection, didRequestKeyFrameForLayer layer: Int, now: UInt64) {
        keyFrameRequests.add(1, ordering: .relaxed)
        if layers.indices.contains(layer) { layers[layer].requestKeyFrame() }
    }
}
#endif
