import SluiceRTP

/// An SVC stream's recording takes one spatial layer, as a player would: `recording.layer`
/// ranks the stream's spatial layers by size (as it ranks simulcast layers), and the file gets
/// the frames of that layer's decode target with every temporal layer, read from the
/// dependency descriptor (or VP9's payload descriptor), nothing from the payload. The marker
/// goes on the end of that layer's frames, so the recorder's assembler closes each picture
/// there; sequence numbers close the gaps the frames left out would make, or the assembler
/// would take them for loss. Worker thread, beside the tap it serves.
struct RecordingSpatialFilter {
    /// The spatial layer recorded; -1 until chosen, and for a stream with one spatial layer.
    private(set) var spatial = -1
    var decided: Bool { spatial >= 0 || recordsWhole }
    /// The stream turned out to have no spatial layers: everything goes to the file.
    private(set) var recordsWhole = false
    private var target = -1
    private var generation: UInt32 = 0
    /// Packets left out so far, taken off the numbers of those after them (the timestamps stay
    /// the source's, which its sender reports map); and the source number expected next.
    private var removed: UInt16 = 0
    private var next: UInt16?

    /// Decides, off the packet path, once the source's structure is known: `requested` among
    /// its spatial layers once they are measured, or the whole stream when it has none (or is
    /// simulcast, whose layers the tap chose among). False while undecided.
    mutating func choose(_ requested: RecordedLayer, upstream: any StreamUpstream) -> Bool {
        if upstream.isSimulcast {
            recordsWhole = true
            return true
        }
        guard let targets = upstream.dependencyTargets() else { return false }
        if targets.layers.allSatisfy({ $0 >> 8 == 0 }) {
            recordsWhole = true
            return true
        }
        guard let index = requested.pick(measured: upstream.spatialLayers) else { return false }
        spatial = index
        target = targets.target(spatialID: index, temporalID: 255)
        generation = targets.generation
        return true
    }

    /// A new structure: the same spatial layer's target in it (-1, nothing recorded, if it has
    /// no such layer until the next).
    @inline(never)
    private mutating func follow(upstream: any StreamUpstream) {
        guard let targets = upstream.dependencyTargets() else { return }
        generation = targets.generation
        let candidate = targets.target(spatialID: spatial, temporalID: 255)
        target = targets.spatialID(ofTarget: candidate) == spatial ? candidate : -1
    }

    /// The sequence number and marker a video packet of `frame` goes into the file with; nil
    /// when its frame is not part of the recorded layer.
    @inline(__always)
    mutating func admit(_ frame: DependencyFrame, packet: RTPPacket,
                        upstream: any StreamUpstream) -> (sequence: UInt16, marker: Bool)? {
        if frame.generation != generation { follow(upstream: upstream) }
        let sequence = packet.sequenceNumber
        // In order (the next, or later after a loss): what follows it counts from it. A late
        // packet (repaired) keeps the count it finds: at worst a gap, as a loss would leave.
        let inOrder = next.map { sequence &- $0 < 0x8000 } ?? true
        if inOrder { next = sequence &+ 1 }
        guard target >= 0, frame.generation == generation, frame.indication(target: target) != .notPresent else {
            if inOrder { removed &+= 1 }
            return nil
        }
        return (sequence &- removed, packet.marker || (frame.endOfFrame && Int(frame.spatialID) == spatial))
    }
}
