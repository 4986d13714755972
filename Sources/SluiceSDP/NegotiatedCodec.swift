/// The codec chosen for one m-line, with the payload type the client uses for it.
public struct NegotiatedCodec: Sendable, Hashable {
    public var name: String
    public var payloadType: Int
    public var clockRate: Int
    public var channels: Int?
    /// The answer's a=fmtp value ("" when none), e.g. `level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f`.
    public var fmtp: String

    public init(name: String, payloadType: Int, clockRate: Int, channels: Int? = nil, fmtp: String = "") {
        self.name = name
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.channels = channels
        self.fmtp = fmtp
    }

    public var parameters: [FormatParameter] { SDPParser.parameters(fmtp) }

    public func hasName(_ other: String) -> Bool { name.lowercased() == other.lowercased() }
}
