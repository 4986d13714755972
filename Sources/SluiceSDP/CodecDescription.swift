/// One payload type of an RTP m-line: a=rtpmap plus its a=fmtp and a=rtcp-fb lines.
public struct CodecDescription: Sendable, Hashable {
    public var payloadType: Int
    /// As written in the SDP; compare with `hasName(_:)` since case varies between stacks.
    public var name: String
    public var clockRate: Int
    public var channels: Int?
    public var parameters: [FormatParameter]
    public var feedback: [RTCPFeedback]

    public init(payloadType: Int, name: String, clockRate: Int, channels: Int? = nil,
                parameters: [FormatParameter] = [], feedback: [RTCPFeedback] = []) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.parameters = parameters
        self.feedback = feedback
    }

    public func hasName(_ other: String) -> Bool { name.lowercased() == other.lowercased() }

    public var isRTX: Bool { hasName("rtx") }

    /// For RTX: the payload type it repairs (fmtp apt=).
    public var associatedPayloadType: Int? { parameters.value(of: "apt").flatMap { Int($0) } }
}
