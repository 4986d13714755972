import SluiceVocabulary

/// A complete frame out of a `FrameAssembler`, in order, ready for a container writer.
public struct AssembledFrame: Sendable, Equatable {
    public var kind: MediaKind
    public var codec: RecordedCodec
    public var data: [UInt8]
    /// The RTP timestamp unwrapped past 32 bits: it keeps growing across the wraparound.
    public var rtpTimestamp: Int64
    public var isKeyFrame: Bool
    public var width: Int?
    public var height: Int?
    /// When its first packet arrived (µs, the packets' clock): what the timeline uses before
    /// any sender report.
    public var arrivalMicros: UInt64

    public init(kind: MediaKind, codec: RecordedCodec, data: [UInt8], rtpTimestamp: Int64, isKeyFrame: Bool,
                width: Int? = nil, height: Int? = nil, arrivalMicros: UInt64) {
        self.kind = kind
        self.codec = codec
        self.data = data
        self.rtpTimestamp = rtpTimestamp
        self.isKeyFrame = isKeyFrame
        self.width = width
        self.height = height
        self.arrivalMicros = arrivalMicros
    }
}
