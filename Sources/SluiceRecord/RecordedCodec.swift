import SluiceVocabulary

/// The codecs a recording holds, each in the container that carries it without transcoding:
/// VP8, VP9 and AV1 (with Opus) in WebM, H264 (with Opus) in fragmented MP4. They are the
/// codecs the forwarder looks inside too: SluiceVocabulary's `CodecName`, which reads them
/// from an SDP name (`RecordedCodec(codecName:)`, nil for one Sluice does not record).
public typealias RecordedCodec = CodecName
