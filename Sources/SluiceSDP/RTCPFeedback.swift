/// a=rtcp-fb (RFC 4585): `nack`, `nack pli`, `ccm fir`, `goog-remb`, `transport-cc`.
public struct RTCPFeedback: Sendable, Hashable {
    public var type: String
    public var parameter: String?

    public init(type: String, parameter: String? = nil) {
        self.type = type
        self.parameter = parameter
    }
}
