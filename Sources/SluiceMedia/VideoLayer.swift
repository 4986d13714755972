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

    init(rid: String?, ssrc: UInt32?, rtxSSRC: UInt32? = nil) {
        self.rid = rid.flatMap { RTPToken($0) }
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }

    /// A layer that sent nothing for a second is paused (by the publisher or its encoder).
    func isActive(now: UInt64) -> Bool {
        lastPacketMicros > 0 && now - lastPacketMicros < 1_000_000
    }
}

/// Frames per second, counted from RTP timestamps that change, sampled at each report tick.
struct FrameRateMeter {
    private var lastTimestamp: UInt32 = 0
    private var frames: UInt64 = 0
    private var lastFrames: UInt64 = 0
    private var lastMicros: UInt64 = 0
    private(set) var fps: Double = 0

    @inline(__always)
    mutating func record(timestamp: UInt32) {
        if timestamp != lastTimestamp || frames == 0 {
            frames += 1
            lastTimestamp = timestamp
        }
    }

    mutating func sample(now: UInt64) {
        if lastMicros > 0, now > lastMicros {
            fps = Double(frames - lastFrames) * 1_000_000 / Double(now - lastMicros)
        }
        lastFrames = frames
        lastMicros = now
    }
}

/// Tells a producer's video packets apart by layer: by SSRC once known (SSRC-based simulcast
/// announces them in `a=ssrc-group:SIM`), else by the rid header extension (RID-based), else,
/// with one layer, by payload type. A layer's SSRC is learned from its first packet.
enum SimulcastDemuxer {
    @inline(__always)
    static func layer(ssrc: UInt32, payloadType: UInt8, rid: RTPToken?, mediaPayloadType: UInt8,
                      layers: inout [VideoLayer]) -> Int? {
        for i in layers.indices where layers[i].ssrc == ssrc { return i }
        guard payloadType == mediaPayloadType else { return nil }
        if layers.count > 1 {
            guard let rid else { return nil }
            for i in layers.indices where layers[i].rid == rid && layers[i].ssrc == nil {
                layers[i].ssrc = ssrc
                return i
            }
            return nil
        }
        guard !layers.isEmpty, layers[0].ssrc == nil else { return nil }
        layers[0].ssrc = ssrc
        return 0
    }

    /// The layer an RTX packet repairs: by its SSRC once known, else its repaired-rid, else
    /// (one layer) the only one.
    static func rtxLayer(ssrc: UInt32, repairedRid: RTPToken?, layers: inout [VideoLayer]) -> Int? {
        for i in layers.indices where layers[i].rtxSSRC == ssrc { return i }
        if layers.count > 1 {
            guard let repairedRid else { return nil }
            for i in layers.indices where layers[i].rid == repairedRid {
                layers[i].rtxSSRC = ssrc
                return i
            }
            return nil
        }
        guard !layers.isEmpty else { return nil }
        layers[0].rtxSSRC = ssrc
        return 0
    }
}
