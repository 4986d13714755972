import SluiceRTP
import SluiceVocabulary

/// The codecs the forwarder looks inside: only to find key frames and their size. Named as
/// SluiceVocabulary's `CodecName` (the raw values are its), with `other` for the rest.
enum CodecKind: String {
    case vp8, vp9, h264, av1, opus, other

    init(_ name: String) {
        self = CodecName(codecName: name).flatMap { CodecKind(rawValue: $0.rawValue) } ?? .other
    }

    @inline(__always)
    func isKeyFrame(_ payload: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .vp8: return VP8PayloadDescriptor(parsing: payload)?.isKeyFrame ?? false
        case .vp9: return VP9PayloadDescriptor(parsing: payload)?.isKeyFrame ?? false
        case .h264: return H264Payload(parsing: payload)?.isKeyFrame ?? false
        case .av1: return AV1AggregationHeader(parsing: payload)?.isKeyFrame ?? false
        case .opus, .other: return false
        }
    }

    /// What the forwarders need of a video payload: key frame or not, the VP8 temporal layer
    /// and descriptor. Once per packet by the producer, and again by instant join for a
    /// cached packet it sends.
    @inline(__always)
    func describe(_ payload: UnsafeRawBufferPointer) -> (isKeyFrame: Bool, temporalLayer: UInt8?, vp8: VP8PayloadDescriptor?) {
        if self == .vp8, let descriptor = VP8PayloadDescriptor(parsing: payload) {
            return (descriptor.isKeyFrame, descriptor.temporalLayerIndex, descriptor)
        }
        return (isKeyFrame(payload), nil, nil)
    }

    func keyFrameSize(_ payload: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        switch self {
        case .vp8: return VP8PayloadDescriptor(parsing: payload)?.keyFrameSize(in: payload)
        case .vp9:
            // The scalability structure of a key frame carries the spatial layers' sizes.
            guard let descriptor = VP9PayloadDescriptor(parsing: payload), let width = descriptor.width,
                  let height = descriptor.height else { return nil }
            return (width, height)
        case .h264:
            guard let sps = H264Payload(parsing: payload)?.sequenceParameterSet,
                  let parsed = H264SequenceParameterSet(parsing: sps) else { return nil }
            return (parsed.width, parsed.height)
        case .av1:
            // The sequence header that opens a key frame gives the encoder's maximum frame size.
            guard let obu = AV1Payload(parsing: payload)?.sequenceHeader,
                  let header = AV1SequenceHeader(parsing: obu) else { return nil }
            return (header.maxFrameWidth, header.maxFrameHeight)
        default: return nil
        }
    }
}
