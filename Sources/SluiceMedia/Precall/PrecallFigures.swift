/// What a pre-call test has measured so far (docs/protocol.md section 6, "Pre-call test"):
/// each figure nil until it is known. Rates are kbit/s at the IP layer, losses fractions.
public struct PrecallFigures: Sendable, Equatable {
    public var elapsedMs: Int = 0
    public var rttMs: Double?
    public var jitterMs: Double?
    public var lossUp: Double?
    public var lossDown: Double?
    public var uplinkKbps: Double?
    public var downlinkKbps: Double?

    public init() {}

    /// The MOS of `connectionQuality`, from the larger loss, the jitter and the RTT.
    public var quality: ConnectionQuality {
        ConnectionQuality(lossFraction: max(lossUp ?? 0, lossDown ?? 0), jitterMs: jitterMs ?? 0, rttMs: rttMs ?? 0)
    }
}

/// How one pre-call test runs (the app's `precall` settings and the request's `seconds`).
public struct PrecallSettings: Sendable, Equatable {
    /// How long it measures once DTLS is up.
    public var seconds: Int
    /// The downlink probe's ceiling.
    public var maxKbps: Int
    /// How long the PeerConnection may take to come up.
    public var connectMicros: UInt64 = 10_000_000
    /// The answer's video m-line is sendrecv (the client receives the probe): the downlink is
    /// measured. With a sendonly one, only the uplink, jitter and (from sender reports) RTT.
    public var probesDownlink: Bool

    public init(seconds: Int, maxKbps: Int, probesDownlink: Bool) {
        self.seconds = seconds
        self.maxKbps = maxKbps
        self.probesDownlink = probesDownlink
    }
}

/// Bytes a packet takes on the wire beyond what SRTP leaves us: IPv4 (20) and UDP (8)
/// headers and the SRTP authentication tag (10, AES_CM_128_HMAC_SHA1_80), so that a rate
/// compares with what a link's shaper counts.
let precallWireOverheadBytes = 38
