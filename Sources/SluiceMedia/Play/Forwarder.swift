import SluiceRTP
import SluiceVocabulary

/// Per player, per packet: whether a source packet goes out, and rewritten how (the layer
/// gate, the temporal-layer skip, the sequence, timestamp and VP8 picture-id mapping). Pure:
/// no transport and no I/O, so it is table-tested with synthetic packets; the consumer applies
/// each `ForwardDecision` (docs/design.md hot-path rule 3, "decide, then write once").
struct Forwarder {
    struct Track {
        var enabled: Bool
        var munger: SequenceMunger
        /// Set when the source changed: wait for a restart point (a key frame for video).
        var needsRestart = true
        /// The source layer and RTP timestamp of the newest packet forwarded (for switches).
        var lastSourceLayer = -1
        var lastSourceTimestamp: UInt32 = 0

        init(enabled: Bool, initialSequence: UInt16 = UInt16.random(in: 1..<0x4000),
             initialTimestamp: UInt32 = UInt32.random(in: 0..<0x4000_0000)) {
            self.enabled = enabled
            munger = SequenceMunger(initialSequence: initialSequence, initialTimestamp: initialTimestamp)
        }
    }

    var audio: Track?
    var video: Track?
    /// The layer being forwarded; nil until the first key frame.
    private(set) var currentLayer: Int?
    /// The layer wanted (`Int.max`: none chosen yet, take the first key frame of any).
    var targetLayer = Int.max
    /// Highest temporal layer wanted: from the `fps` constraint, or the base alone when even
    /// the lowest layer does not fit the estimate (255: all).
    var maxTemporalLayer: UInt8 = 255
    /// The highest temporal layer forwarded now. It follows `maxTemporalLayer` only where the
    /// player's decoder can: down at the start of a frame, up one layer at a time on a VP8
    /// layer-sync frame (Y: it references the base layer alone), and to it at once on a key
    /// frame. Raised at any other frame, the next frames of the layer would reference ones
    /// the player never got, and it would show garbage until the next key frame.
    private(set) var temporalLimit: UInt8 = 255
    /// Video in VP8: picture ids and TL0PICIDX are continued across sources.
    let rewritesVP8: Bool
    private var vp8 = VP8Munger()

    // The dependency descriptor (`Forwarder+Dependency.swift`), set by the consumer off the
    // packet path.
    /// The source's decode targets, for the structure `targets.generation`.
    var targets = DependencyTargets()
    /// The decode target this player should get (-1: not known yet).
    var wantedTarget = -1
    /// The one it gets now (-1: none yet; the next switch point starts it).
    var activeTarget = -1
    /// Frames went out by their layers alone (before `wantedTarget` was known): every lower
    /// target is contained in what the player has.
    var forwardedByLayers = false
    /// SVC: the player's layer choice picks a spatial layer of the one encoding (`targetSpatial`;
    /// Int.max: all), and switches are reported between spatial layers.
    var choosesSpatialLayers = false
    var targetSpatial = Int.max
    /// The spatial layer forwarded now (SVC); nil before the first.
    var currentSpatial: Int?
    /// The player was last told fewer active decode targets than the structure has: it is told
    /// again at each frame until a structure (which makes all active) says otherwise.
    var toldPartialTargets = false
    /// The descriptor's frame numbers as this player sees them: one unbroken count across its
    /// layer switches and sources (`FrameNumberContinuity`, in `Forwarder+Dependency.swift`).
    var frameNumbers = FrameNumberContinuity()

    init(audio: Track?, video: Track?, rewritesVP8: Bool) {
        self.audio = audio
        self.video = video
        self.rewritesVP8 = rewritesVP8
    }

    /// A new source (a publisher came or went): every kind restarts right after the last
    /// packet sent, at its next restart point.
    mutating func sourceChanged() {
        audio?.needsRestart = true
        video?.needsRestart = true
        currentLayer = nil
        targetLayer = Int.max
        restartDependency()
    }

    mutating func restart(_ kind: MediaKind) {
        if kind == .audio { audio?.needsRestart = true } else {
            video?.needsRestart = true
            restartDependency()
        }
    }

    /// `captureMicros(layer, timestamp)` maps a source RTP timestamp to the publisher's clock
    /// (from its sender reports), so a switch keeps the player's timestamps true. Called only
    /// when a track restarts.
    @inline(__always)
    mutating func decide(_ item: borrowing ForwardedPacket,
                         captureMicros: (Int, UInt32) -> Int64?) -> ForwardDecision {
        if item.kind == .audio {
            guard audio != nil, audio!.enabled else { return .drop }
            return Self.map(item, track: &audio!, layerSwitch: nil, captureMicros: captureMicros)
        }
        guard video != nil, video!.enabled else { return .drop }
        let layer = item.layer
        var layerSwitch: LayerSwitch?
        if layer != currentLayer || video!.needsRestart {
            // Only a key frame of the wanted layer starts (or switches) the video; with none
            // chosen yet, of any layer at first, then of the one it runs on.
            guard layer == targetLayer || (targetLayer == Int.max && (currentLayer == nil || currentLayer == layer))
            else { return .drop }
            guard item.isKeyFrame else { return .waitForKeyFrame(layer: layer) }
            if currentLayer != layer && !choosesSpatialLayers { layerSwitch = LayerSwitch(from: currentLayer, to: layer) }
            if video!.needsRestart { restartDependency() }
            currentLayer = layer
            video!.needsRestart = true
            vp8.restart()
        }
        var setsMarker = false
        var activeTargets: ActiveTargetsRewrite?
        var frameNumberOffset: UInt16 = 0
        if let frame = item.dependency {
            guard let (marker, switched) = followDependency(frame, isKeyFrame: item.isKeyFrame,
                                                            sourceMarker: item.packet.marker) else {
                video!.munger.skip(sequence: item.packet.sequenceNumber)
                return .drop
            }
            setsMarker = marker
            if let switched { layerSwitch = switched }
            if frame.startOfFrame || frame.attachesStructure { activeTargets = announcedTargets(frame) }
            frameNumberOffset = frameNumbers.offset(for: frame.frameNumber, layer: layer)
        } else if let tid = item.temporalLayer {
            if temporalLimit != maxTemporalLayer
                && (tid > temporalLimit || maxTemporalLayer < temporalLimit || item.isKeyFrame) {
                followTemporalCap(item, temporalLayer: tid)
            }
            if tid > temporalLimit, !item.isKeyFrame {
                // This temporal layer is not for this player (a frame rate cap, or no bandwidth).
                video!.munger.skip(sequence: item.packet.sequenceNumber)
                if let descriptor = item.vp8 { vp8.skip(descriptor) }
                return .drop
            }
        }
        var decision = Self.map(item, track: &video!, layerSwitch: layerSwitch, captureMicros: captureMicros)
        if setsMarker || activeTargets != nil || frameNumberOffset != 0, case .forward(var forward) = decision {
            forward.setsMarker = setsMarker
            forward.activeTargets = activeTargets
            forward.frameNumberOffset = frameNumberOffset
            decision = .forward(forward)
        }
        guard rewritesVP8, let descriptor = item.vp8, case .forward(var forward) = decision else { return decision }
        // Picture ids and TL0PICIDX differ per layer and per publisher: continue them.
        forward.vp8 = vp8.map(descriptor)
        return .forward(forward)
    }

    /// Moves `temporalLimit` toward `maxTemporalLayer` where the decoder can follow. Called only
    /// while they differ and this packet is one the move is about.
    @inline(never)
    private mutating func followTemporalCap(_ item: borrowing ForwardedPacket, temporalLayer tid: UInt8) {
        guard let descriptor = item.vp8, !item.isKeyFrame else {
            // A key frame references nothing; the other codecs carry no sync mark here: at once.
            temporalLimit = maxTemporalLayer
            return
        }
        guard descriptor.isStartOfPartition, descriptor.partitionIndex == 0 else { return }
        if maxTemporalLayer < temporalLimit {
            temporalLimit = maxTemporalLayer
        } else if tid == temporalLimit &+ 1, descriptor.isLayerSync {
            temporalLimit = tid
        }
    }

    @inline(__always)
    private static func map(_ item: borrowing ForwardedPacket, track: inout Track, layerSwitch: LayerSwitch?,
                            captureMicros: (Int, UInt32) -> Int64?) -> ForwardDecision {
        let packet = item.packet
        if track.needsRestart {
            if item.kind == .video && !item.isKeyFrame { return .waitForKeyFrame(layer: nil) }
            var step: Int64?
            if item.kind == .video, track.lastSourceLayer >= 0,
               let from = captureMicros(track.lastSourceLayer, track.lastSourceTimestamp),
               let to = captureMicros(item.layer, packet.timestamp),
               to > from, to - from < 5_000_000 {
                step = (to - from) * Int64(item.clockRate) / 1_000_000
            }
            track.munger.restart(atSequence: packet.sequenceNumber, timestamp: packet.timestamp,
                                 clockRate: item.clockRate, now: item.now, timestampStep: step)
            track.needsRestart = false
        }
        guard case .forward(let sequence, let timestamp) = track.munger.map(
            sequence: packet.sequenceNumber, timestamp: packet.timestamp, now: item.now) else { return .drop }
        track.lastSourceLayer = item.layer
        track.lastSourceTimestamp = packet.timestamp
        return .forward(ForwardRewrite(sequence: sequence, timestamp: timestamp, vp8: nil, layerSwitch: layerSwitch))
    }

    // MARK: Instant join (CatchUp)

    /// The player's timestamp of the newest video packet sent.
    var videoLastOutTimestamp: Int64 { video?.munger.lastOutTimestamp ?? 0 }

    /// Stamps the cached frame with this source timestamp `out` for the player.
    mutating func retimeVideo(timestamp: UInt32, to out: Int64) {
        video?.munger.retime(timestamp: timestamp, to: out)
    }

    /// The catch-up jumped to a newer key frame of the same layer: restart there, right after
    /// the last packet sent and with the time since it as the timestamp step (the sender
    /// reports' media time would count the frames skipped and make the player wait for them).
    mutating func restartVideoAfterSkip() {
        video?.needsRestart = true
        video?.lastSourceLayer = -1
    }

    /// The sequence number (and timestamp) of a packet the server makes itself (padding),
    /// between whole frames; nil before the video started.
    mutating func insertVideoPacket() -> (sequenceNumber: UInt16, timestamp: UInt32)? {
        guard video != nil, !video!.needsRestart else { return nil }
        return video!.munger.insert()
    }

    /// The highest temporal layer that keeps the frame rate within `fpsCap`: with T layers
    /// (each doubling the rate), layer k carries fps / 2^(T-1-k). 255 means all.
    static func temporalLayerLimit(fpsCap: Int?, timing: (fps: Double, temporalLayers: Int)) -> UInt8 {
        guard let cap = fpsCap, timing.temporalLayers > 1, timing.fps > 0 else { return 255 }
        let top = timing.temporalLayers - 1
        for k in stride(from: top, through: 0, by: -1) {
            let rate = timing.fps / Double(1 << (top - k))
            if rate <= Double(cap) * 1.1 { return UInt8(k) }
        }
        return 0
    }
}
