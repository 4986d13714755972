/// All a=ssrc lines of one SSRC (RFC 5576), attributes in order.
public struct SSRCDescription: Sendable, Hashable {
    public var ssrc: UInt32
    public var attributes: [SDPAttribute]

    public init(ssrc: UInt32, attributes: [SDPAttribute] = []) {
        self.ssrc = ssrc
        self.attributes = attributes
    }

    public var cname: String? { attributes.first { $0.name == "cname" }?.value }
    public var msid: String? { attributes.first { $0.name == "msid" }?.value }
}
