/// A stream the client announced with a=ssrc lines: primary SSRC and its RTX (ssrc-group FID).
public struct RemoteSSRC: Sendable, Hashable {
    public var ssrc: UInt32
    public var rtxSSRC: UInt32?
    public var cname: String?

    public init(ssrc: UInt32, rtxSSRC: UInt32? = nil, cname: String? = nil) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.cname = cname
    }
}
