/// What a datagram on a port that STUN, DTLS and SRTP share carries, from its first byte
/// alone (RFC 7983, which updates RFC 5764 section 5.1.2). The one classifier every
/// receiver uses: the worker's UDP and TCP dispatch, the transport's receive, the STUN
/// parser's check and `RTPPacket.looksLikeRTPOrRTCP`. Called per packet: a switch over one
/// byte, inlined, allocating nothing.
public enum PacketClass: Sendable, Equatable {
    /// 0...3: STUN (ICE checks).
    case stun
    /// 16...19: ZRTP (not spoken by WebRTC; dropped).
    case zrtp
    /// 20...63: DTLS records.
    case dtls
    /// 64...79: TURN ChannelData (not on our ports; dropped).
    case turnChannel
    /// 128...191: RTP or RTCP (RFC 5761 tells them apart by the second byte).
    case rtp
    /// Everything else: no protocol of RFC 7983; dropped.
    case unknown

    @inlinable @inline(__always)
    public static func of(firstByte: UInt8) -> PacketClass {
        switch firstByte {
        case 0...3: return .stun
        case 16...19: return .zrtp
        case 20...63: return .dtls
        case 64...79: return .turnChannel
        case 128...191: return .rtp
        default: return .unknown
        }
    }
}
