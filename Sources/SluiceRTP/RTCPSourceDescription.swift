import SluiceWire

/// Source description, PT 202 (RFC 3550 section 6.5). Only CNAME is kept; other items are skipped.
public struct RTCPSourceDescription: Equatable, Sendable {
    public struct Chunk: Equatable, Sendable {
        public var ssrc: UInt32
        /// Raw CNAME bytes (at most 255 are written); nil when the chunk carries none.
        public var cname: [UInt8]?

        public init(ssrc: UInt32, cname: [UInt8]?) {
            self.ssrc = ssrc
            self.cname = cname
        }

        public init(ssrc: UInt32, cname: String) {
            self.init(ssrc: ssrc, cname: Array(cname.utf8))
        }

        public var cnameString: String? { cname.map { String(decoding: $0, as: UTF8.self) } }

        var cnameLength: Int { min(cname?.count ?? 0, 255) }

        /// SSRC, the CNAME item, at least one null octet, padded to 32 bits.
        var serializedSize: Int { (4 + (cname == nil ? 0 : 2 + cnameLength) + 1 + 3) & ~3 }
    }

    static let cnameItem: UInt8 = 1

    /// At most 31 chunks; `write` sends the first 31.
    public var chunks: [Chunk]

    public init(chunks: [Chunk]) {
        self.chunks = chunks
    }

    /// Parses the first packet of `buffer`.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.sourceDescription) else { return nil }
        var reader = ByteReader(packet.body)
        var chunks: [Chunk] = []
        for _ in 0..<packet.count {
            guard let ssrc = reader.readUInt32() else { return nil }
            var cname: [UInt8]?
            while true {
                guard let type = reader.readUInt8() else { return nil }
                if type == 0 { break }
                guard let length = reader.readUInt8(), let text = reader.readBytes(Int(length)) else { return nil }
                if type == Self.cnameItem, cname == nil { cname = Array(text) }
            }
            // The terminating null octets run to the next 32-bit boundary.
            let aligned = (reader.offset + 3) & ~3
            guard reader.skip(aligned - reader.offset) else { return nil }
            chunks.append(Chunk(ssrc: ssrc, cname: cname))
        }
        self.chunks = chunks
    }

    public var serializedSize: Int { 4 + chunks.prefix(31).reduce(0) { $0 + $1.serializedSize } }

    public func write(into writer: inout ByteWriter) {
        let sent = chunks.prefix(31)
        RTCPPacket.writeHeader(into: &writer, count: UInt8(sent.count), type: RTCPPacketType.sourceDescription,
                               size: serializedSize)
        for chunk in sent {
            writer.write(chunk.ssrc)
            var written = 4
            if let cname = chunk.cname {
                let length = chunk.cnameLength
                writer.write(Self.cnameItem)
                writer.write(UInt8(length))
                cname.withUnsafeBytes { writer.write(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
                written += 2 + length
            }
            writer.write(zeros: chunk.serializedSize - written)
        }
    }
}
