import CAVFormat
import SluiceRecord

/// A reference clip's packets, read with libavformat's demuxer: real encoded frames with their
/// timestamps (ms, the clip's earliest at 0), to feed through RecordingWriter.
struct DemuxedClip {
    struct Frame {
        var track: RecordingTrack
        var bytes: [UInt8]
        var ptsMillis: Int64
        var isKeyFrame: Bool
    }

    var frames: [Frame] = []
    var videoCodec: String?
    var width = 0
    var height = 0
    var videoExtradata: [UInt8] = []
    var audioChannels = 0
    var durationMillis: Int64 = 0

    var videoFrames: Int { frames.filter { $0.track == .video }.count }
    var audioFrames: Int { frames.filter { $0.track == .audio }.count }

    struct Failure: Error { var what: String }

    init(path: String) throws {
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&context, path, nil, nil) >= 0, let input = context else {
            throw Failure(what: "open \(path)")
        }
        defer { avformat_close_input(&context) }
        guard avformat_find_stream_info(input, nil) >= 0 else { throw Failure(what: "stream info") }
        durationMillis = input.pointee.duration / 1000
        var tracks: [Int32: RecordingTrack] = [:]
        for index in 0..<Int(input.pointee.nb_streams) {
            let stream = input.pointee.streams[index]!
            let parameters = stream.pointee.codecpar!.pointee
            if parameters.codec_type == AVMEDIA_TYPE_VIDEO {
                tracks[stream.pointee.index] = .video
                videoCodec = String(cString: avcodec_get_name(parameters.codec_id))
                width = Int(parameters.width)
                height = Int(parameters.height)
                if let data = parameters.extradata, parameters.extradata_size > 0 {
                    videoExtradata = Array(UnsafeBufferPointer(start: data, count: Int(parameters.extradata_size)))
                }
            } else if parameters.codec_type == AVMEDIA_TYPE_AUDIO {
                tracks[stream.pointee.index] = .audio
                audioChannels = Int(parameters.ch_layout.nb_channels)
            }
        }
        guard let packet = av_packet_alloc() else { throw Failure(what: "packet") }
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&owned) }
        let millis = AVRational(num: 1, den: 1000)
        while av_read_frame(input, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard let track = tracks[packet.pointee.stream_index], let data = packet.pointee.data else { continue }
            let stream = input.pointee.streams[Int(packet.pointee.stream_index)]!
            let raw = packet.pointee.pts != Int64.min ? packet.pointee.pts : packet.pointee.dts
            frames.append(Frame(track: track, bytes: Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))),
                                ptsMillis: av_rescale_q(raw, stream.pointee.time_base, millis),
                                isKeyFrame: packet.pointee.flags & AV_PKT_FLAG_KEY != 0))
        }
        let start = frames.map(\.ptsMillis).min() ?? 0
        for index in frames.indices { frames[index].ptsMillis -= start }
    }

    /// Writes every frame, in the demuxed order, through `writer`.
    func feed(_ writer: RecordingWriter) throws {
        for frame in frames {
            try writer.write(frame.bytes, track: frame.track, ptsMillis: frame.ptsMillis, isKeyFrame: frame.isKeyFrame)
        }
    }
}
