import SluiceWire

/// The Data Channel Establishment Protocol's two messages (RFC 8832), carried on the
/// channel's own SCTP stream with PPID 50. A peer opens a channel with `open`; the other
/// side answers `ack` on the same stream, and the channel is open both ways.
public enum DCEPMessage: Equatable, Sendable {
    case open(DCEPOpen)
    case ack

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case empty
        case unknownType(UInt8)
        case truncated(needed: Int, have: Int)
        case unknownChannelType(UInt8)
        case badUTF8(field: String)

        public var description: String {
            switch self {
            case .empty: return "empty DCEP message"
            case .unknownType(let type): return "unknown DCEP message type \(type)"
            case .truncated(let needed, let have): return "DCEP open is \(have) bytes, needs \(needed)"
            case .unknownChannelType(let type): return "unknown DCEP channel type 0x\(String(type, radix: 16))"
            case .badUTF8(let field): return "DCEP \(field) is not UTF-8"
            }
        }
    }

    static let openType: UInt8 = 0x03
    static let ackType: UInt8 = 0x02
    /// Type, channel type, priority, reliability parameter, label length, protocol length.
    static let openHeaderSize = 12

    public init(parsing bytes: UnsafeRawBufferPointer) throws(ParseError) {
        guard bytes.count > 0 else { throw .empty }
        switch bytes[0] {
        case Self.ackType:
            self = .ack
        case Self.openType:
            guard bytes.count >= Self.openHeaderSize else {
                throw .truncated(needed: Self.openHeaderSize, have: bytes.count)
            }
            guard let reliability = ChannelReliability(channelType: bytes[1],
                                                       parameter: bytes.loadBigEndianUInt32(at: 4)) else {
                throw .unknownChannelType(bytes[1])
            }
            let labelLength = Int(bytes.loadBigEndianUInt16(at: 8))
            let protocolLength = Int(bytes.loadBigEndianUInt16(at: 10))
            let needed = Self.openHeaderSize + labelLength + protocolLength
            guard bytes.count >= needed else { throw .truncated(needed: needed, have: bytes.count) }
            let labelBytes = UnsafeRawBufferPointer(rebasing: bytes[Self.openHeaderSize..<Self.openHeaderSize + labelLength])
            let protocolBytes = UnsafeRawBufferPointer(rebasing: bytes[Self.openHeaderSize + labelLength..<needed])
            guard let label = String(validating: labelBytes, as: UTF8.self) else { throw .badUTF8(field: "label") }
            guard let proto = String(validating: protocolBytes, as: UTF8.self) else { throw .badUTF8(field: "protocol") }
            self = .open(DCEPOpen(reliability: reliability, priority: bytes.loadBigEndianUInt16(at: 2),
                                  label: label, protocol: proto))
        default:
            throw .unknownType(bytes[0])
        }
    }

    /// The message as sent on the wire.
    public var bytes: [UInt8] {
        switch self {
        case .ack:
            return [Self.ackType]
        case .open(let open):
            let label = Array(open.label.utf8), proto = Array(open.protocol.utf8)
            var out: [UInt8] = [Self.openType, open.reliability.channelType]
            out += [UInt8(open.priority >> 8), UInt8(open.priority & 0xff)]
            let parameter = open.reliability.parameter
            out += [UInt8(parameter >> 24), UInt8((parameter >> 16) & 0xff), UInt8((parameter >> 8) & 0xff), UInt8(parameter & 0xff)]
            out += [UInt8(label.count >> 8), UInt8(label.count & 0xff), UInt8(proto.count >> 8), UInt8(proto.count & 0xff)]
            return out + label + proto
        }
    }
}

/// A DATA_CHANNEL_OPEN: what the opener asked for.
public struct DCEPOpen: Equatable, Sendable {
    public var reliability: ChannelReliability
    public var priority: UInt16
    public var label: String
    public var `protocol`: String

    public init(reliability: ChannelReliability, priority: UInt16 = 256, label: String, protocol: String = "") {
        self.reliability = reliability
        self.priority = priority
        self.label = label
        self.protocol = `protocol`
    }
}
