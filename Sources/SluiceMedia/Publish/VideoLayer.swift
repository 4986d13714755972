import SluiceRTP

/// One simulcast layer (or the only video stream) of a producer: how it is recognised,
/// what it measured, and its size learned from key frames.
struct VideoLayer {
    /// The rid it is announced with (RID-based simulcast), as inline bytes.
    let rid: RTPToken?
    var ssrc: UInt32?
    var stats = ReceiveStreamStats()
    var bitrate = BitrateMeter()
    var frames = FrameRateMeter()
    var width = 0
    var height = 0
    var lastPacketMicros: UInt64 = 0
    /// The bitrate last measured over a second it sent throughout: what a paused layer (by
    /// dynacast, or its publisher) would cost again, for the players' choice of layers.
    var lastActiveKbps: Double = 0
    var keyFrameRequests = KeyFrameRequestGate()
    /// The publisher's retransmission stream (RTX, RFC 4588) for this layer, once known.
    var rtxSSRC: UInt32?
    /// The last sender report's clock pair: NTP time (µs) and the RTP timestamp it matches.
    var senderReportMicros: UInt64 = 0
    var senderReportRTP: UInt32 = 0
    /// Temporal layers seen in its VP8 descriptors (highest TID + 1).
    var temporalLayers = 1
    var retransmissions = RetransmissionBuffer()
    var nacks = NackGenerator()
    /// The dependency structure its descriptors refer to, when the publisher negotiated the
    /// dependency descriptor (nil otherwise: nothing allocated for it).
    var dependencies: DependencyTemplateTable?
    /// The RTP timestamp of the last key frame its descriptors announced (the frame that
    /// brought the structure): every frame of that picture, in any spatial layer, is part of
    /// the key frame.
    var dependencyKeyTimestamp: UInt32?
    /// Descriptors that did not parse (their packets go on without one).
    var malformedDependencies: UInt64 = 0
    /// Per decode target of its dependency structure, what it costs (with `dependencies`).
    var targetMeters: DecodeTargetMeters?
    /// VP9 SVC without the dependency descriptor: the structure made from the VP9 payload
    /// descriptor, kept in `dependencies` (one encoding only).
    var vp9: VP9Dependency?

    init(rid: String?, ssrc: UInt32?, rtxSSRC: UInt32? = nil) {
        self.rid = rid.flatMap { RTPToken($0) }
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }

    /// Once a second, after the bitrate's sample: keep it if the layer is sending still (a
    /// sample from the second it stopped in would count only part of it).
    mutating func sampled(now: UInt64) {
        if lastPacketMicros > 0, now &- lastPacketMicros < 250_000 { lastActiveKbps = bitrate.kbps }
    }

    /// The bitrate for the players' choice: the measured one, or the last while paused.
    func selectorKbps(now: UInt64) -> Double { isActive(now: now) ? bitrate.kbps : lastActiveKbps }

    /// A layer that sent nothing for a second is paused (by the publisher or its encoder).
    func isActive(now: UInt64) -> Bool {
        lastPacketMicros > 0 && now - lastPacketMicros < 1_000_000
    }
}

extension VideoLayer {
    /// The frame a VP9 packet's payload descriptor tells, as the dependency descriptor would
    /// (`VP9Dependency`); nil when the layer does not read VP9 layers or the packet has none.
    @inline(__always)
    mutating func readVP9(_ payload: UnsafeRawBufferPointer, timestamp: UInt32) -> DependencyFrame? {
        guard vp9 != nil, dependencies != nil, let descriptor = VP9PayloadDescriptor(parsing: payload) else { return nil }
        return vp9!.frame(descriptor, payload: payload, timestamp: timestamp, table: &dependencies!)
    }
}
