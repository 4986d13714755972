/// The server's own sending SSRCs for one play m-line.
public struct LocalSSRCs: Sendable, Hashable {
    public var ssrc: UInt32
    public var rtxSSRC: UInt32?

    public init(ssrc: UInt32, rtxSSRC: UInt32? = nil) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }
}
