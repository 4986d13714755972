/// The aggregation header of an AV1 RTP payload (AV1 RTP specification section 4.4).
public struct AV1AggregationHeader: Equatable, Sendable {
    /// Z: the first OBU element continues an OBU fragment from the previous packet.
    public let continuesFragment: Bool
    /// Y: the last OBU element will continue in the next packet.
    public let fragmentContinues: Bool
    /// W: number of OBU elements, 0 meaning each carries a length field.
    public let obuCount: UInt8
    /// N: first packet of a coded video sequence.
    public let startsCodedVideoSequence: Bool

    public init?(parsing payload: UnsafeRawBufferPointer) {
        guard let byte = payload.first else { return nil }
        continuesFragment = byte & 0x80 != 0
        fragmentContinues = byte & 0x40 != 0
        obuCount = byte >> 4 & 0x03
        startsCodedVideoSequence = byte & 0x08 != 0
    }

    /// A new coded video sequence begins with a key frame.
    public var isKeyFrame: Bool { startsCodedVideoSequence }

    public static let length = 1
}
