import SluiceWire

/// RTCP packet types (RFC 3550, RFC 4585, RFC 3611).
public enum RTCPPacketType {
    public static let senderReport: UInt8 = 200
    public static let receiverReport: UInt8 = 201
    public static let sourceDescription: UInt8 = 202
    public static let bye: UInt8 = 203
    public static let application: UInt8 = 204
    /// Transport-layer feedback: NACK (fmt 1), transport-wide CC (fmt 15).
    public static let transportFeedback: UInt8 = 205
    /// Payload-specific feedback: PLI (fmt 1), FIR (fmt 4), REMB (fmt 15).
    public static let payloadFeedback: UInt8 = 206
    public static let extendedReport: UInt8 = 207
}

/// Why an RTCP packet was rejected.
public enum RTCPParseError: Error, Equatable, Sendable {
    case tooShort
    case badVersion
    case badLength
    case badPadding
    case wrongType
    case malformedBody
}

/// A view of one RTCP packet: its common header, checked against the buffer.
/// `body` is what follows the 4-byte header, without padding.
public struct RTCPPacket {
    public let packetType: UInt8
    /// Reception report count, source count or feedback message type, by packet type.
    public let count: UInt8
    public let hasPadding: Bool
    /// The whole packet, header to padding, as its length field states.
    public let bytes: UnsafeRawBufferPointer
    public let body: UnsafeRawBufferPointer

    public init(validating buffer: UnsafeRawBufferPointer) throws(RTCPParseError) {
        guard buffer.count >= 4 else { throw .tooShort }
        let first = buffer[0]
        guard first >> 6 == 2 else { throw .badVersion }
        let length = (Int(buffer.loadBigEndianUInt16(at: 2)) + 1) * 4
        guard length <= buffer.count else { throw .badLength }
        var bodyEnd = length
        if first & 0x20 != 0 {
            let padding = Int(buffer[length - 1])
            guard padding > 0, padding <= length - 4 else { throw .badPadding }
            bodyEnd -= padding
        }
        packetType = buffer[1]
        count = first & 0x1f
        hasPadding = first & 0x20 != 0
        bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
        body = UnsafeRawBufferPointer(rebasing: buffer[4..<bodyEnd])
    }

    /// Parses the first packet of `buffer`, which may hold more after it.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = try? RTCPPacket(validating: buffer) else { return nil }
        self = packet
    }

    /// The first packet of `buffer`, checked to be of `type` (and `count`, when given).
    static func expect(_ buffer: UnsafeRawBufferPointer, type: UInt8, count: UInt8? = nil) -> RTCPPacket? {
        guard let packet = RTCPPacket(parsing: buffer), packet.packetType == type else { return nil }
        if let count, packet.count != count { return nil }
        return packet
    }

    /// Writes a header for a packet of `size` bytes in all (a multiple of 4).
    static func writeHeader(into writer: inout ByteWriter, count: UInt8, type: UInt8, size: Int) {
        writer.write(0x80 | count & 0x1f)
        writer.write(type)
        writer.write(UInt16(truncatingIfNeeded: size / 4 - 1))
    }
}

/// Walks the packets of a compound RTCP packet. A packet whose header or length does not fit
/// ends the walk and sets `isMalformed`; packets before it were valid and stay usable.
public struct RTCPCompoundIterator: IteratorProtocol {
    public let buffer: UnsafeRawBufferPointer
    public private(set) var offset = 0
    public private(set) var error: RTCPParseError?

    public init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    public var isMalformed: Bool { error != nil }

    /// The next packet; `range` gives its place in the compound packet.
    public mutating func next() -> (packet: RTCPPacket, range: Range<Int>)? {
        guard offset < buffer.count else { return nil }
        do {
            let packet = try RTCPPacket(validating: UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            let range = offset..<offset + packet.bytes.count
            offset = range.upperBound
            return (packet, range)
        } catch {
            self.error = error
            offset = buffer.count
            return nil
        }
    }
}
