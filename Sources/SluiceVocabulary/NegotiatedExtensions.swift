/// Negotiated RTP header extension ids (RFC 8285); nil when not negotiated. The ids are the
/// one-byte or two-byte element ids an RTP packet carries, so 1...255: the SDP side keeps
/// only extmaps in that range (`init(validating:)` for ids as parsed).
public struct NegotiatedExtensions: Sendable, Hashable {
    public var mid: UInt8?
    public var rid: UInt8?
    public var repairedRid: UInt8?
    public var absSendTime: UInt8?
    public var transportCC: UInt8?
    public var audioLevel: UInt8?
    /// The AV1 RTP specification's dependency descriptor (appendix A): a frame's layers and
    /// dependencies, read without the payload (video only).
    public var dependencyDescriptor: UInt8?

    public init(mid: UInt8? = nil, rid: UInt8? = nil, repairedRid: UInt8? = nil, absSendTime: UInt8? = nil,
                transportCC: UInt8? = nil, audioLevel: UInt8? = nil, dependencyDescriptor: UInt8? = nil) {
        self.mid = mid
        self.rid = rid
        self.repairedRid = repairedRid
        self.absSendTime = absSendTime
        self.transportCC = transportCC
        self.audioLevel = audioLevel
        self.dependencyDescriptor = dependencyDescriptor
    }

    /// An id as written in an a=extmap line: nil (not negotiated) outside 1...255.
    public static func id(_ value: Int?) -> UInt8? {
        value.flatMap { (1...255).contains($0) ? UInt8($0) : nil }
    }
}
