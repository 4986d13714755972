import SluiceWire

/// Generic NACK, RTPFB fmt 1 (RFC 4585 section 6.2.1).
public struct RTCPGenericNACK: Equatable, Sendable {
    public static let format: UInt8 = 1

    /// One FCI entry: a lost packet id and a bitmask of the 16 following losses.
    public struct Pair: Equatable, Sendable {
        public var packetID: UInt16
        public var lostBitmask: UInt16

        public init(packetID: UInt16, lostBitmask: UInt16) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }

        /// Calls `body` with each sequence number this pair reports lost, in order.
        @inlinable
        public func forEachLost(_ body: (UInt16) -> Void) {
            body(packetID)
            var mask = lostBitmask
            var bit: UInt16 = 1
            while mask != 0 {
                if mask & 1 != 0 { body(packetID &+ bit) }
                mask >>= 1
                bit += 1
            }
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var pairs: [Pair]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, pairs: [Pair]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// Packs lost sequence numbers, sorted in wrap-aware order (65535 before 0), into pairs.
    /// Duplicates are ignored.
    public init<S: Sequence>(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: S)
    where S.Element == UInt16 {
        var pairs: [Pair] = []
        for seq in lostSequenceNumbers {
            if let last = pairs.last {
                let distance = seq &- last.packetID
                if distance == 0 { continue }
                if distance <= 16 {
                    pairs[pairs.count - 1].lostBitmask |= 1 << (distance - 1)
                    continue
                }
            }
            pairs.append(Pair(packetID: seq, lostBitmask: 0))
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: pairs)
    }

    /// Parses the first packet of `buffer`.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.transportFeedback, count: Self.format)
        else { return nil }
        var reader = ByteReader(packet.body)
        guard let sender = reader.readUInt32(), let media = reader.readUInt32() else { return nil }
        var pairs: [Pair] = []
        pairs.reserveCapacity(reader.remaining / 4)
        while reader.remaining >= 4 {
            guard let pid = reader.readUInt16(), let blp = reader.readUInt16() else { return nil }
            pairs.append(Pair(packetID: pid, lostBitmask: blp))
        }
        guard !pairs.isEmpty else { return nil }
        self.init(senderSSRC: sender, mediaSSRC: media, pairs: pairs)
    }

    /// Every sequence number reported lost, in packet order.
    public var lostSequenceNumbers: [UInt16] {
        var result: [UInt16] = []
        for pair in pairs { pair.forEachLost { result.append($0) } }
        return result
    }

    public var serializedSize: Int { 12 + pairs.count * 4 }

    public func write(into writer: inout ByteWriter) {
        RTCPPacket.writeHeader(into: &writer, count: Self.format, type: RTCPPacketType.transportFeedback,
                               size: serializedSize)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        for pair in pairs {
            writer.write(pair.packetID)
            writer.write(pair.lostBitmask)
        }
    }
}
