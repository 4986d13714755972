/// What a worker with players of a stream must know of its source, besides the packets:
/// sent by the stream's home worker (the one that receives it) when a worker starts
/// relaying, when the publisher comes or goes, when a layer's size changes, and with each
/// layer measurement (about once a second). A value, copied into the command that carries it.
struct SourceSnapshot: Sendable {
    struct Layer: Sendable {
        var selector: LayerSelector.Layer
        var stats: LayerStats
        var fps: Double
        var temporalLayers: Int
        /// The last sender report's wall clock (µs) and RTP timestamp; 0 before one.
        var senderReportMicros: UInt64
        var senderReportRTP: UInt32
    }

    /// Whether the stream has a publisher now.
    var present = false
    var isSimulcast = false
    var clockRate: UInt32 = 90_000
    /// The publisher's dependency descriptor id, under which the packets carry it (nil: none).
    var dependencyDescriptorID: UInt8?
    var layers: [Layer] = []
    /// The spatial layers of one SVC encoding (`StreamSource.spatialLayers`); empty without.
    var spatialLayers: [LayerSelector.Layer] = []
    var dependencyTargets: DependencyTargets?
    var audioMuted = false
    var videoMuted = false
}
