import SluiceWire

/// An RTP payload in the redundant audio format (RFC 2198), as Chromium sends Opus under
/// `red/48000/2` with the `fmtp` `111/111`: a header per block (4 bytes for each redundant
/// one, F=1: payload type, timestamp offset, length; 1 byte for the primary, F=0), then the
/// blocks in the same order, the primary last and running to the end of the payload.
///
/// Parsed in place with every length checked against the payload, and no allocation: the
/// redundant blocks are walked again on demand (`block(_:in:)`). Refused: a header list that
/// runs past the payload, blocks longer than it, more than `maxBlocks` blocks, and a block
/// whose payload type is RED's own (RED inside RED).
public struct REDPayload: Equatable, Sendable {
    /// Chromium sends one redundant block, libwebrtc at most a few; more is not RED we take.
    public static let maxBlocks = 16

    public struct Block: Equatable, Sendable {
        public let payloadType: UInt8
        /// How much older than the packet's timestamp the block's audio is (0 for the primary).
        public let timestampOffset: UInt16
        /// Where the block's bytes are in the payload.
        public let range: Range<Int>
    }

    /// Blocks, the primary included (1: the primary alone).
    public let count: Int
    public let primary: Block

    public init?(parsing payload: UnsafeRawBufferPointer, redPayloadType: UInt8) {
        var offset = 0
        var dataLength = 0
        var blocks = 0
        while true {
            guard offset < payload.count, blocks < Self.maxBlocks else { return nil }
            let first = payload[offset]
            let payloadType = first & 0x7f
            guard payloadType != redPayloadType & 0x7f else { return nil }
            blocks += 1
            guard first & 0x80 != 0 else {
                offset += 1
                let start = offset + dataLength
                guard start <= payload.count else { return nil }
                count = blocks
                primary = Block(payloadType: payloadType, timestampOffset: 0, range: start..<payload.count)
                return
            }
            guard offset + 4 <= payload.count else { return nil }
            dataLength += Int(payload[offset + 2] & 0x03) << 8 | Int(payload[offset + 3])
            offset += 4
        }
    }

    /// Redundant block `index` (0 the oldest sent first, up to `count - 2`); nil past them.
    public func block(_ index: Int, in payload: UnsafeRawBufferPointer) -> Block? {
        guard index >= 0, index < count - 1 else { return nil }
        let headers = (count - 1) * 4 + 1
        var start = headers
        for i in 0...index {
            let at = i * 4
            let value = Int(payload[at + 1]) << 16 | Int(payload[at + 2]) << 8 | Int(payload[at + 3])
            let length = value & 0x3ff
            if i == index {
                return Block(payloadType: payload[at] & 0x7f, timestampOffset: UInt16(value >> 10), range: start..<start + length)
            }
            start += length
        }
        return nil
    }

    /// Sets the payload type of each of the first `blocks` block headers of a RED payload
    /// (parsed before, so the headers are there): a player whose Opus has another payload
    /// type than its publisher's reads the blocks under its own.
    public static func setBlockPayloadTypes(_ payloadType: UInt8, blocks: Int, in payload: UnsafeMutableRawBufferPointer) {
        guard blocks > 0, (blocks - 1) * 4 < payload.count else { return }
        for index in 0..<blocks - 1 { payload[index * 4] = 0x80 | payloadType & 0x7f }
        payload[(blocks - 1) * 4] = payloadType & 0x7f
    }

    /// Writes a RED payload: each redundant block's header, the primary's, then the blocks.
    /// False when a block is over 1,023 bytes, an offset over 16,383 (the header cannot say
    /// them), there are more than `maxBlocks` blocks, or the writer overflowed.
    public static func write(primaryPayloadType: UInt8, primary: [UInt8],
                             redundant: [(payloadType: UInt8, timestampOffset: UInt16, bytes: [UInt8])],
                             into writer: inout ByteWriter) -> Bool {
        guard redundant.count < maxBlocks else { return false }
        for block in redundant {
            guard block.bytes.count <= 0x3ff, block.timestampOffset <= 0x3fff else { return false }
            writer.write(0x80 | block.payloadType & 0x7f)
            writer.writeUInt24(UInt32(block.timestampOffset) << 10 | UInt32(block.bytes.count))
        }
        writer.write(primaryPayloadType & 0x7f)
        for block in redundant { block.bytes.withUnsafeBytes { writer.write(bytes: $0) } }
        primary.withUnsafeBytes { writer.write(bytes: $0) }
        return !writer.overflowed
    }
}
