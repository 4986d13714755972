#if canImport(SluiceTransport)
import SluiceRTP
import SluiceWire

/// One sent RTP stream's numbering: SSRC, payload type and the next sequence number.
struct OutgoingRTPStream {
    var ssrc: UInt32
    var payloadType: UInt8
    /// Starts below 2^15 so that the receiver's SRTP rollover counter cannot desync.
    var sequenceNumber: UInt16
    /// The mid as the one-byte RTP header extension value, when the mid is one byte long.
    var midByte: UInt8?
    var packets: UInt64 = 0
    var bytes: UInt64 = 0

    init(ssrc: UInt32, payloadType: UInt8, mid: String?) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        sequenceNumber = UInt16.random(in: 0..<0x4000)
        let utf8 = mid.map { Array($0.utf8) } ?? []
        midByte = utf8.count == 1 ? utf8[0] : nil
    }
}

/// The header extension ids a sender writes, from the answer; nil where it was not negotiated.
struct SendExtensionIDs {
    var mid: UInt8?
    var absSendTime: UInt8?
    var transportCC: UInt8?
    /// Video only: the dependency descriptor, written when a packet is sent with one.
    var dependencyDescriptor: UInt8?

    static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    static let absSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    static let transportCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    init(_ ids: [String: UInt8]) {
        mid = ids[Self.midURI]
        absSendTime = ids[Self.absSendTimeURI]
        transportCC = ids[Self.transportCCURI]
        dependencyDescriptor = ids[ClientOffer.dependencyDescriptorURI]
    }

    /// abs-send-time: seconds in 6.18 fixed point, 24 bits, so only the time modulo 64 s counts.
    @inline(__always)
    static func absSendTime(micros: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: ((micros % 64_000_000) << 18) / 1_000_000) & 0x00FF_FFFF
    }
}
#endif
