import SluiceRTP
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// One synthetic source packet as a producer would hand it over: an RTP header and, for
/// VP8, a descriptor with a 15-bit picture id, TL0PICIDX and TID.
private struct Source {
    var layer = 0
    var sequence: UInt16
    var timestamp: UInt32
    var keyFrame = false
    var tid: UInt8?
    var pictureID: Int?
    var kind = MediaKind.video
    /// VP8's Y bit: the frame references the base temporal layer alone.
    var layerSync = false
    /// S=1 with partition 0: the frame's first packet.
    var frameStart = true

    func bytes() -> [UInt8] {
        var header: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xff),
                               UInt8(timestamp >> 24), UInt8((timestamp >> 16) & 0xff),
                               UInt8((timestamp >> 8) & 0xff), UInt8(timestamp & 0xff), 0, 0, 0, 1]
        if let pictureID {
            // X=1 S=1; I=1 L=1 T=1; M=1 + 15 bits; TL0PICIDX; TID in the top two bits.
            header += [frameStart ? 0x90 : 0x80, 0xe0, UInt8(0x80 | (pictureID >> 8)), UInt8(pictureID & 0xff), 5,
                       UInt8((tid ?? 0) << 6) | (layerSync ? 0x20 : 0), keyFrame ? 0x00 : 0x01]
        } else {
            header += [0xaa, 0xbb]
        }
        return header
    }
}

/// Runs `source` through `forwarder` with no sender report known.
private func decide(_ forwarder: inout Forwarder, _ source: Source) -> ForwardDecision {
    var bytes = source.bytes()
    return bytes.withUnsafeMutableBytes { raw in
        let packet = RTPPacket(parsing: raw)!
        let vp8 = source.pictureID == nil ? nil : VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(packet.payload))
        let item = ForwardedPacket(packet: packet, kind: source.kind, layer: source.layer, isKeyFrame: source.keyFrame,
                                   temporalLayer: source.tid, vp8: vp8, clockRate: 90_000, audioLevel: nil, now: 1_000_000)
        return forwarder.decide(item) { _, _ in nil }
    }
}

private func videoForwarder(vp8: Bool = false) -> Forwarder {
    Forwarder(audio: Forwarder.Track(enabled: true, initialSequence: 100, initialTimestamp: 1000),
              video: Forwarder.Track(enabled: true, initialSequence: 500, initialTimestamp: 9000), rewritesVP8: vp8)
}

/// What a decision says, as a comparable value.
private enum Outcome: Equatable {
    case drop
    case wait(Int?)
    case forward(UInt16, UInt32, LayerSwitch?)
}

private func outcome(_ decision: ForwardDecision) -> Outcome {
    switch decision {
    case .drop: return .drop
    case .waitForKeyFrame(let layer): return .wait(layer)
    case .forward(let rewrite): return .forward(rewrite.sequence, rewrite.timestamp, rewrite.layerSwitch)
    }
}

struct ForwarderTests {
    /// Video starts on the first key frame of any layer (none chosen yet); what comes before
    /// it asks for one.
    @Test func videoStartsOnAKeyFrame() {
        var forwarder = videoForwarder()
        #expect(outcome(decide(&forwarder, Source(sequence: 10, timestamp: 3000))) == .wait(0))
        #expect(outcome(decide(&forwarder, Source(sequence: 11, timestamp: 3000, keyFrame: true)))
                == .forward(500, 9000, LayerSwitch(from: nil, to: 0)))
        #expect(outcome(decide(&forwarder, Source(sequence: 12, timestamp: 6000))) == .forward(501, 12000, nil))
        #expect(forwarder.currentLayer == 0)
    }

    /// With a layer chosen, other layers are dropped; the chosen one asks for a key frame and
    /// takes over on it, continuing the output sequence with no gap.
    @Test func aSwitchWaitsForTheTargetLayersKeyFrame() {
        var forwarder = videoForwarder()
        forwarder.targetLayer = 0
        #expect(outcome(decide(&forwarder, Source(layer: 1, sequence: 70, timestamp: 100, keyFrame: true))) == .drop)
        _ = decide(&forwarder, Source(layer: 0, sequence: 10, timestamp: 3000, keyFrame: true))
        _ = decide(&forwarder, Source(layer: 0, sequence: 11, timestamp: 6000))
        forwarder.targetLayer = 1
        #expect(outcome(decide(&forwarder, Source(layer: 1, sequence: 71, timestamp: 200))) == .wait(1))
        // Layer 0 keeps flowing until the switch.
        #expect(outcome(decide(&forwarder, Source(layer: 0, sequence: 12, timestamp: 9000))) == .forward(502, 15000, nil))
        guard case .forward(let sequence, _, let layerSwitch) = outcome(
            decide(&forwarder, Source(layer: 1, sequence: 72, timestamp: 300, keyFrame: true))) else {
            Issue.record("the key frame of the target layer was not forwarded")
            return
        }
        #expect(sequence == 503)
        #expect(layerSwitch == LayerSwitch(from: 0, to: 1))
        #expect(outcome(decide(&forwarder, Source(layer: 0, sequence: 13, timestamp: 12000))) == .drop)
        #expect(forwarder.currentLayer == 1)
    }

    /// A frame-rate cap drops the temporal layers above it without leaving a sequence gap,
    /// and VP8 picture ids stay consecutive.
    @Test func temporalCapSkipsWithoutGaps() {
        var forwarder = videoForwarder(vp8: true)
        forwarder.maxTemporalLayer = 0
        func forward(_ source: Source) -> (UInt16, Int32)? {
            guard case .forward(let rewrite) = decide(&forwarder, source) else { return nil }
            return (rewrite.sequence, rewrite.vp8?.pictureID ?? -1)
        }
        #expect(forward(Source(sequence: 1, timestamp: 0, keyFrame: true, tid: 0, pictureID: 40))! == (500, 40))
        #expect(forward(Source(sequence: 2, timestamp: 3000, tid: 1, pictureID: 41)) == nil)
        let next = forward(Source(sequence: 3, timestamp: 6000, tid: 0, pictureID: 42))!
        #expect(next == (501, 41))
    }

    /// A lowered cap takes effect at the next frame's start, never inside a frame; a raised one
    /// one layer at a time, at a layer-sync frame of the layer above (a frame of it that is not
    /// a sync frame references ones the player never got).
    @Test func temporalCapMovesWhereTheDecoderCanFollow() {
        var forwarder = videoForwarder(vp8: true)
        func sent(_ sequence: UInt16, tid: UInt8, key: Bool = false, sync: Bool = false, start: Bool = true) -> Bool {
            guard case .forward = decide(&forwarder, Source(sequence: sequence, timestamp: UInt32(sequence) * 3000,
                                                            keyFrame: key, tid: tid, pictureID: Int(sequence),
                                                            layerSync: sync, frameStart: start)) else { return false }
            return true
        }
        #expect(sent(1, tid: 0, key: true))
        #expect(sent(2, tid: 2))
        forwarder.maxTemporalLayer = 0
        // The rest of the TL2 frame already started still goes; the next TL2 frame does not.
        #expect(sent(3, tid: 2, start: false))
        #expect(!sent(4, tid: 2))
        #expect(forwarder.temporalLimit == 0)
        #expect(sent(5, tid: 0))
        forwarder.maxTemporalLayer = 255
        // TL2 waits for TL1; TL1 waits for its sync frame; then TL2's sync frame.
        #expect(!sent(6, tid: 2, sync: true))
        #expect(!sent(7, tid: 1))
        #expect(sent(8, tid: 1, sync: true))
        #expect(sent(9, tid: 1, start: false))
        #expect(!sent(10, tid: 2))
        #expect(sent(11, tid: 2, sync: true))
        #expect(sent(12, tid: 2))
        #expect(forwarder.temporalLimit == 2)
        // A key frame references nothing: it raises the limit at once.
        forwarder.maxTemporalLayer = 0
        #expect(!sent(13, tid: 1))
        forwarder.maxTemporalLayer = 255
        #expect(sent(14, tid: 0, key: true))
        #expect(forwarder.temporalLimit == 255)
        #expect(sent(15, tid: 2))
    }

    /// A new source restarts both kinds after the last packet sent; audio needs no key frame.
    @Test func aNewSourceContinuesTheSequence() {
        var forwarder = videoForwarder()
        _ = decide(&forwarder, Source(sequence: 10, timestamp: 3000, keyFrame: true))
        #expect(outcome(decide(&forwarder, Source(sequence: 7, timestamp: 50, kind: .audio))) == .forward(100, 1000, nil))
        forwarder.sourceChanged()
        #expect(outcome(decide(&forwarder, Source(sequence: 900, timestamp: 1, kind: .audio)))
                .isForward(sequence: 101))
        #expect(outcome(decide(&forwarder, Source(sequence: 4000, timestamp: 77))) == .wait(0))
        #expect(outcome(decide(&forwarder, Source(sequence: 4001, timestamp: 77, keyFrame: true))).isForward(sequence: 501))
    }

    @Test func aDisabledKindIsDropped() {
        var forwarder = videoForwarder()
        forwarder.audio?.enabled = false
        #expect(outcome(decide(&forwarder, Source(sequence: 7, timestamp: 50, kind: .audio))) == .drop)
        forwarder.video?.enabled = false
        #expect(outcome(decide(&forwarder, Source(sequence: 10, timestamp: 3000, keyFrame: true))) == .drop)
    }

    /// Padding takes the next sequence number only once video runs, and the source moves up.
    @Test func paddingTakesASequenceNumberOfItsOwn() {
        var forwarder = videoForwarder()
        #expect(forwarder.insertVideoPacket() == nil)
        _ = decide(&forwarder, Source(sequence: 10, timestamp: 3000, keyFrame: true))
        #expect(forwarder.insertVideoPacket()?.sequenceNumber == 501)
        #expect(outcome(decide(&forwarder, Source(sequence: 11, timestamp: 6000))).isForward(sequence: 502))
    }
}

private extension Outcome {
    func isForward(sequence expected: UInt16) -> Bool {
        if case .forward(let sequence, _, _) = self { return sequence == expected }
        return false
    }
}

/// Instant join's rewrite: cached packets go through the joiner's forwarder like live ones, so
/// they land in its own sequence space (here across the source's wrap) with no gap, and each
/// later cached frame takes the timestamp the catch-up gives it (`retimeVideo`); live packets
/// then continue from the last one. A skip to a newer key frame restarts right after it.
struct ForwarderCatchUpTests {
    @Test func cachedPacketsTakeTheJoinersNumbersAcrossTheWrap() {
        var forwarder = videoForwarder()
        var outcomes: [Outcome] = []
        outcomes.append(outcome(decide(&forwarder, Source(sequence: 65534, timestamp: 1000, keyFrame: true))))
        outcomes.append(outcome(decide(&forwarder, Source(sequence: 65535, timestamp: 1000))))
        forwarder.retimeVideo(timestamp: 4000, to: forwarder.videoLastOutTimestamp + 1)
        outcomes.append(outcome(decide(&forwarder, Source(sequence: 0, timestamp: 4000))))
        outcomes.append(outcome(decide(&forwarder, Source(sequence: 1, timestamp: 4000))))
        forwarder.retimeVideo(timestamp: 7000, to: forwarder.videoLastOutTimestamp + 500)
        outcomes.append(outcome(decide(&forwarder, Source(sequence: 2, timestamp: 7000))))
        // Live from here: the natural 3000 ticks after the last cached frame.
        outcomes.append(outcome(decide(&forwarder, Source(sequence: 3, timestamp: 10_000))))
        #expect(outcomes == [.forward(500, 9000, LayerSwitch(from: nil, to: 0)), .forward(501, 9000, nil),
                             .forward(502, 9001, nil), .forward(503, 9001, nil), .forward(504, 9501, nil),
                             .forward(505, 12_501, nil)])
        // A newer key frame far ahead in the source: right after the last packet, and after
        // its timestamp, not as far as the source's own clock says.
        forwarder.restartVideoAfterSkip()
        #expect(outcome(decide(&forwarder, Source(sequence: 40, timestamp: 900_000))) == .wait(0))
        #expect(outcome(decide(&forwarder, Source(sequence: 41, timestamp: 903_000, keyFrame: true))) == .forward(506, 12_502, nil))
    }
}
