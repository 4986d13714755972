/// How a data channel delivers (RFC 8832 section 5.1): ordered or not, and reliable, or
/// given up after a number of retransmissions (`maxRetransmits`) or a lifetime in ms
/// (`maxPacketLifeTime`), which SCTP carries out with partial reliability (RFC 3758).
public struct ChannelReliability: Equatable, Sendable {
    public enum Limit: Equatable, Sendable {
        case reliable
        case retransmits(UInt32)
        case lifetimeMs(UInt32)
    }

    public var ordered: Bool
    public var limit: Limit

    public init(ordered: Bool, limit: Limit) {
        self.ordered = ordered
        self.limit = limit
    }

    public static let reliableOrdered = ChannelReliability(ordered: true, limit: .reliable)

    /// From the open message's channel type and reliability parameter; nil for a type RFC
    /// 8832 does not define.
    public init?(channelType: UInt8, parameter: UInt32) {
        ordered = channelType & 0x80 == 0
        switch channelType & 0x7f {
        case 0x00: limit = .reliable
        case 0x01: limit = .retransmits(parameter)
        case 0x02: limit = .lifetimeMs(parameter)
        default: return nil
        }
    }

    public var channelType: UInt8 {
        let base: UInt8
        switch limit {
        case .reliable: base = 0x00
        case .retransmits: base = 0x01
        case .lifetimeMs: base = 0x02
        }
        return ordered ? base : base | 0x80
    }

    public var parameter: UInt32 {
        switch limit {
        case .reliable: return 0
        case .retransmits(let n), .lifetimeMs(let n): return n
        }
    }
}
