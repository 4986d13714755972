import SluiceWire

/// What the server reads of an SCTP packet (RFC 9260 section 3) before usrsctp sees it: the
/// common header and the chunk list, walked without trusting any length. A packet that is
/// not well formed, or not between the ports the SDP agreed, never reaches the stack; the
/// INIT chunks are counted, so that an INIT flood is cut off before it costs usrsctp a cookie
/// per packet. Pure: unit-tested and fuzzed (Fuzz/Sources/FuzzSCTP).
public struct SCTPPacketCheck: Equatable, Sendable {
    public enum Rejection: Error, Equatable, CustomStringConvertible {
        case tooShort(Int)
        case wrongPorts(source: UInt16, destination: UInt16)
        case noChunks
        case badChunkLength(offset: Int, length: Int)
        case initNotAlone
        case initWithTag

        public var description: String {
            switch self {
            case .tooShort(let count): return "SCTP packet of \(count) bytes (the common header is 12)"
            case .wrongPorts(let source, let destination): return "SCTP ports \(source) -> \(destination) are not the negotiated ones"
            case .noChunks: return "SCTP packet without chunks"
            case .badChunkLength(let offset, let length): return "SCTP chunk at \(offset) has length \(length)"
            case .initNotAlone: return "SCTP INIT bundled with other chunks"
            case .initWithTag: return "SCTP INIT with a non-zero verification tag"
            }
        }
    }

    public static let commonHeaderSize = 12
    static let chunkHeaderSize = 4
    static let initChunk: UInt8 = 1

    /// Chunks in the packet, and how many of them are INIT.
    public var chunks: Int
    public var initChunks: Int

    /// `localPort`/`remotePort`: the SDP's `a=sctp-port` of the server and of the peer.
    public init(packet bytes: UnsafeRawBufferPointer, localPort: UInt16, remotePort: UInt16) throws(Rejection) {
        guard bytes.count >= Self.commonHeaderSize + Self.chunkHeaderSize else {
            if bytes.count == Self.commonHeaderSize { throw .noChunks }
            throw .tooShort(bytes.count)
        }
        let source = bytes.loadBigEndianUInt16(at: 0), destination = bytes.loadBigEndianUInt16(at: 2)
        guard source == remotePort, destination == localPort else {
            throw .wrongPorts(source: source, destination: destination)
        }
        let tag = bytes.loadBigEndianUInt32(at: 4)
        var offset = Self.commonHeaderSize
        var chunks = 0, inits = 0
        while offset < bytes.count {
            guard offset + Self.chunkHeaderSize <= bytes.count else {
                throw .badChunkLength(offset: offset, length: bytes.count - offset)
            }
            let length = Int(bytes.loadBigEndianUInt16(at: offset + 2))
            guard length >= Self.chunkHeaderSize, offset + length <= bytes.count else {
                throw .badChunkLength(offset: offset, length: length)
            }
            if bytes[offset] == Self.initChunk { inits += 1 }
            chunks += 1
            // Chunks are padded to 4 bytes; the last one's padding may be left off.
            offset += (length + 3) & ~3
        }
        if inits > 0 {
            guard chunks == 1 else { throw .initNotAlone }
            guard tag == 0 else { throw .initWithTag }
        }
        self.chunks = chunks
        initChunks = inits
    }
}
