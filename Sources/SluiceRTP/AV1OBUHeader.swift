import SluiceWire

/// The header of an AV1 open bitstream unit (AV1 specification section 5.3): its type, the
/// optional extension with the layer indices, and the optional obu_size field.
public struct AV1OBUHeader: Equatable, Sendable {
    public enum OBUType {
        public static let sequenceHeader: UInt8 = 1
        public static let temporalDelimiter: UInt8 = 2
        public static let frameHeader: UInt8 = 3
        public static let frame: UInt8 = 6
    }

    public let type: UInt8
    /// From the extension byte, present in scalable streams; nil without one.
    public let temporalID: UInt8?
    public let spatialID: UInt8?
    /// obu_size, when the OBU carries it. The RTP format lets a sender drop it, and senders
    /// usually do: an OBU element's own length says the same.
    public let payloadSize: Int?
    /// Header bytes, extension and obu_size included: where the OBU payload starts.
    public let length: Int

    /// nil when the bytes cannot start an OBU: empty, the forbidden bit set, or a header cut short.
    public init?(parsing obu: UnsafeRawBufferPointer) {
        var reader = ByteReader(obu)
        guard let first = reader.readUInt8(), first & 0x80 == 0 else { return nil }
        type = first >> 3 & 0x0f
        if first & 0x04 != 0 {
            guard let ext = reader.readUInt8() else { return nil }
            temporalID = ext >> 5
            spatialID = ext >> 3 & 0x03
        } else {
            temporalID = nil
            spatialID = nil
        }
        if first & 0x02 != 0 {
            guard let size = reader.readLEB128() else { return nil }
            payloadSize = size
        } else {
            payloadSize = nil
        }
        length = reader.offset
    }

    /// The OBU payload within `obu`, the bytes this header was parsed from. Bounded by obu_size
    /// when present, and by the bytes at hand: the last OBU element of a packet may be the first
    /// fragment of an OBU, and a prefix is still worth reading.
    public func payload(in obu: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let start = min(length, obu.count)
        let end = payloadSize.map { min(obu.count, start + $0) } ?? obu.count
        return UnsafeRawBufferPointer(rebasing: obu[start..<end])
    }
}
