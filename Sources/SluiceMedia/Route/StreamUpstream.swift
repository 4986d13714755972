/// What a sink (a player's consumer, a relay link, a recording) may ask of the stream it
/// receives, and nothing more. The router hands itself to each sink as this.
///
/// Reads only, plus key-frame requests. A request made while the producer is forwarding a
/// packet is queued and taken by the producer after its fan-out (`Router.forward`), so no
/// player re-enters the producer in the middle of a packet.
protocol StreamUpstream: AnyObject {
    /// The source's layers as last measured (about once a second, off the packet path);
    /// empty without a publisher.
    var measuredLayers: [LayerSelector.Layer] { get }
    /// The spatial layers of a source that sends one SVC encoding, as last measured: what its
    /// players choose among instead of `measuredLayers`. Empty otherwise.
    var spatialLayers: [LayerSelector.Layer] { get }
    /// The decode targets of the source's dependency structure (the dependency descriptor);
    /// nil when it sends none.
    func dependencyTargets() -> DependencyTargets?
    /// True while the stream has a source: a publisher, or on another worker its relay.
    var hasSource: Bool { get }
    var isSimulcast: Bool { get }
    /// Frame rate and temporal layer count of a layer (1 when it has no temporal layers).
    func layerTiming(_ layer: Int) -> (fps: Double, temporalLayers: Int)
    func layerSize(_ layer: Int) -> (width: Int, height: Int)
    func layerStats(now: UInt64) -> [LayerStats]
    /// The publisher's wall-clock time (µs) of an RTP timestamp of `layer`; nil before its
    /// first sender report.
    func captureMicros(layer: Int, timestamp: UInt32) -> Int64?
    /// The producer's stored copy of a packet, for a player's NACK.
    func storedPacket(layer: Int, sequence: UInt16) -> UnsafeMutableRawBufferPointer?
    /// The extension id of the dependency descriptor in the stored packets (the publisher's);
    /// nil when they carry none.
    var dependencyDescriptorID: UInt8? { get }
    /// Instant join: `layer`'s last key frame and the live edge, as the router saw them; nil
    /// before the first.
    func keyFrameMark(layer: Int) -> KeyFrameMark?
    /// The same, only when it may start a player now: at most `maxAgeMicros` old, still stored.
    func cachedKeyFrame(layer: Int, now: UInt64, maxAgeMicros: UInt64) -> KeyFrameMark?
    /// A key frame of `layer`, or of every layer (nil).
    func requestKeyFrame(layer: Int?)
    /// The player's current or target layer changed, or its video went on or off: a relay
    /// link's edge asks its origin for the layers its players need (docs/cluster.md, "Layers
    /// on a link"). Sets a flag; safe on the packet path.
    func wantedLayersChanged()
}
