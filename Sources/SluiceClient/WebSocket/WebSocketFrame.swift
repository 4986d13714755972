/// One WebSocket frame (RFC 6455 section 5.2). Signaling runs at control rate, so frames own
/// their payload as an array.
public struct WebSocketFrame: Equatable {
    public enum Opcode: UInt8 {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA

        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    public enum ParseError: Error, Equatable {
        case reservedBits
        case unknownOpcode(UInt8)
        /// Control frames are at most 125 bytes and never fragmented.
        case badControlFrame
        case tooLarge(UInt64)
    }

    public var fin: Bool
    public var opcode: Opcode
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: Opcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The first frame of `bytes` and how many bytes it took; nil when more bytes are needed.
    /// Frames from a server are unmasked, but a masked one is unmasked too.
    public static func parse(_ bytes: ArraySlice<UInt8>, maxPayload: Int) throws(ParseError) -> (frame: WebSocketFrame, consumed: Int)? {
        guard bytes.count >= 2 else { return nil }
        let start = bytes.startIndex
        let first = bytes[start], second = bytes[start + 1]
        guard first & 0x70 == 0 else { throw .reservedBits }
        guard let opcode = Opcode(rawValue: first & 0x0F) else { throw .unknownOpcode(first & 0x0F) }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        var length = UInt64(second & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= offset + 2 else { return nil }
            length = UInt64(bytes[start + 2]) << 8 | UInt64(bytes[start + 3])
            offset += 2
        } else if length == 127 {
            guard bytes.count >= offset + 8 else { return nil }
            length = 0
            for i in 0..<8 { length = length << 8 | UInt64(bytes[start + 2 + i]) }
            offset += 8
        }
        if opcode.isControl && (length > 125 || !fin) { throw .badControlFrame }
        guard length <= UInt64(maxPayload) else { throw .tooLarge(length) }
        var mask: [UInt8] = []
        if masked {
            guard bytes.count >= offset + 4 else { return nil }
            mask = Array(bytes[(start + offset)..<(start + offset + 4)])
            offset += 4
        }
        let count = Int(length)
        guard bytes.count >= offset + count else { return nil }
        var payload = Array(bytes[(start + offset)..<(start + offset + count)])
        if masked {
            for i in payload.indices { payload[i] ^= mask[i & 3] }
        }
        return (WebSocketFrame(fin: fin, opcode: opcode, payload: payload), offset + count)
    }

    /// The frame as a client sends it: masked with `mask` (RFC 6455 section 5.3).
    public func serialized(mask: (UInt8, UInt8, UInt8, UInt8)) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        out.reserveCapacity(payload.count + 14)
        let count = payload.count
        if count < 126 {
            out.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            out += [0x80 | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        let key = [mask.0, mask.1, mask.2, mask.3]
        out += key
        for (i, byte) in payload.enumerated() { out.append(byte ^ key[i & 3]) }
        return out
    }

    /// A close frame's body: a 2-byte code and a UTF-8 reason.
    static func closePayload(code: UInt16, reason: String) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
    }

    /// The code and reason of a received close frame's body.
    public static func parseClose(_ payload: [UInt8]) -> (code: UInt16?, reason: String) {
        guard payload.count >= 2 else { return (nil, "") }
        return (UInt16(payload[0]) << 8 | UInt16(payload[1]), String(decoding: payload[2...], as: UTF8.self))
    }
}
