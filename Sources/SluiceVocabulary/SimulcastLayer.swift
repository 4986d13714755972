/// One simulcast layer as offered, lowest first in the client's order: by rid
/// (a=simulcast) or by SSRC (a=ssrc-group:SIM). The media core gets only the layers that
/// are not paused.
public struct SimulcastLayer: Sendable, Hashable {
    public var rid: String?
    public var ssrc: UInt32?
    public var rtxSSRC: UInt32?
    public var paused: Bool

    public init(rid: String? = nil, ssrc: UInt32? = nil, rtxSSRC: UInt32? = nil, paused: Bool = false) {
        self.rid = rid
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.paused = paused
    }
}
