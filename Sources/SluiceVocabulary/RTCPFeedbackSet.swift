/// The RTCP feedback agreed for a track's codec (a=rtcp-fb), as the SDP negotiation finds
/// it and the media core uses it.
public struct RTCPFeedbackSet: Sendable, Hashable {
    public var nack = false
    public var pli = false
    public var fir = false
    public var remb = false
    public var transportCC = false

    public init(nack: Bool = false, pli: Bool = false, fir: Bool = false, remb: Bool = false, transportCC: Bool = false) {
        self.nack = nack
        self.pli = pli
        self.fir = fir
        self.remb = remb
        self.transportCC = transportCC
    }
}
