/// Where a router's packets come from: the stream's `Producer` on the worker that receives
/// it, or a `RelayIngress` on any other worker with players of the stream. The router answers
/// its consumers' reads (`StreamUpstream`) from its source and hands it their key-frame
/// requests. Off the packet path: the source calls the router for each packet, never the
/// other way round.
protocol StreamSource: AnyObject {
    /// Set by `Router.attach`, cleared by `detach`.
    var router: Router? { get set }
    var isSimulcast: Bool { get }
    /// The layers as the selector sees them, measured now.
    func selectorLayers(now: UInt64) -> [LayerSelector.Layer]
    /// The spatial layers of one SVC encoding, measured now; empty without.
    func spatialLayers(now: UInt64) -> [LayerSelector.Layer]
    /// The decode targets of its dependency structure; nil without one.
    func dependencyTargets() -> DependencyTargets?
    func layerTiming(_ layer: Int) -> (fps: Double, temporalLayers: Int)
    func layerSize(_ layer: Int) -> (width: Int, height: Int)
    func layerStats(now: UInt64) -> [LayerStats]
    func captureMicros(layer: Int, timestamp: UInt32) -> Int64?
    func storedPacket(layer: Int, sequence: UInt16) -> UnsafeMutableRawBufferPointer?
    /// The publisher's dependency descriptor id, under which its stored packets carry it.
    var dependencyDescriptorID: UInt8? { get }
    func requestKeyFrames(_ requests: KeyFrameRequests)
    /// What a relaying worker must know of the source now (`WorkerRelay`): asked of the home's
    /// source only.
    func snapshot(now: UInt64) -> SourceSnapshot
}
