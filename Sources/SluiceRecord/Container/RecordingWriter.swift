import CAVFormat
#if canImport(Glibc)
import Glibc
#endif

/// Writes one recording file from encoded frames with libavformat (no transcoding): WebM for
/// VP8/VP9/AV1 with Opus, fragmented MP4 for H264 with Opus. One per file, used from the
/// recorder thread only (not thread-safe; allocates per frame, which is fine off the packet
/// path).
///
/// The file is written as `<path>.part` and renamed to `<path>` by `close()`. The muxer options
/// (see `RecordingContainer.muxerOptions`) put a cluster or fragment on disk about every second,
/// so a `.part` left by kill -9 plays up to near the kill. A resize is carried as
/// `RecordingContainer` documents: in place in WebM, a new file (a new writer) in MP4.
///
/// Timestamps are ms on the recording's shared timeline (0 = its start). Each track's must
/// increase strictly; presentation = decoding order (no B-frames: WebRTC's H264 has none).
/// If the writer is dropped without `close()`, deinit writes the trailer and frees everything
/// but leaves the file as `.part` (an unfinished recording keeps the unfinished name).
public final class RecordingWriter {
    public let path: String
    public let partPath: String
    public let container: RecordingContainer
    public let video: RecordedVideoTrack?
    public let audio: RecordedAudioTrack?

    private let muxerOptions: [(String, String)]
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// The last video frame, held until the next gives its duration.
    private var pendingVideo: UnsafeMutablePointer<AVPacket>?
    private var lastVideoStep: Int64 = 0
    private var videoStream: UnsafeMutablePointer<AVStream>?
    private var audioStream: UnsafeMutablePointer<AVStream>?
    private var state = State.open
    private var lastMillis: [RecordingTrack: Int64] = [:]
    private var endMillis: Int64 = 0
    private var videoFrames = 0
    private var audioFrames = 0

    private enum State { case open, failed, closed }
    private static let millis = AVRational(num: 1, den: 1000)

    /// Opens `<path>.part` and writes the header. Throws `unsupportedTrack` for a track the
    /// container cannot carry or no track at all, `diskFull`, or `libav`; nothing is left open
    /// when it throws (an empty or partial `.part` may be left on disk).
    public convenience init(path: String, container: RecordingContainer, video: RecordedVideoTrack?,
                            audio: RecordedAudioTrack?) throws {
        try self.init(path: path, container: container, video: video, audio: audio,
                      muxerOptions: container.muxerOptions)
    }

    /// With other muxer options than the container's: for the tests' control (the defaults
    /// lose a crashed file) only.
    init(path: String, container: RecordingContainer, video: RecordedVideoTrack?, audio: RecordedAudioTrack?,
         muxerOptions: [(String, String)]) throws {
        self.muxerOptions = muxerOptions
        self.path = path
        self.partPath = path + ".part"
        self.container = container
        self.video = video
        self.audio = audio
        do {
            try Self.validate(container: container, video: video, audio: audio)
            try open()
        } catch {
            release()
            throw error
        }
    }

    deinit {
        if state == .open, let context {
            if lastMillis[.video] != nil { try? sendPendingVideo(stepMillis: lastVideoStep) }
            _ = av_write_trailer(context)
        }
        release()
    }

    /// Writes one encoded frame. A frame for a track not opened throws `unknownTrack`; a
    /// timestamp not after the track's previous throws `timestampWentBack`; both refuse only
    /// that frame. Any libav failure (`diskFull`, `libav`) fails the writer.
    public func write(_ frame: UnsafeRawBufferPointer, track: RecordingTrack, ptsMillis: Int64,
                      isKeyFrame: Bool) throws {
        guard state == .open, context != nil, let packet else { throw RecordingWriteError.failed }
        guard let stream = track == .video ? videoStream : audioStream else {
            throw RecordingWriteError.unknownTrack(track)
        }
        let previous = lastMillis[track] ?? -1
        guard ptsMillis > previous else {
            throw RecordingWriteError.timestampWentBack(track: track, previousMillis: previous, gotMillis: ptsMillis)
        }
        let status = av_new_packet(packet, Int32(frame.count))
        guard status >= 0 else { try fail(status, "av_new_packet") }
        if let base = frame.baseAddress, frame.count > 0 {
            packet.pointee.data.update(from: base.assumingMemoryBound(to: UInt8.self), count: frame.count)
        }
        let timeBase = stream.pointee.time_base
        packet.pointee.stream_index = stream.pointee.index
        packet.pointee.pts = av_rescale_q(ptsMillis, Self.millis, timeBase)
        packet.pointee.dts = packet.pointee.pts
        if isKeyFrame || track == .audio { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        if track == .audio {
            let samples = OpusHead.packetSamples(frame)
            packet.pointee.duration = av_rescale_q(samples, AVRational(num: 1, den: Int32(RecordedAudioTrack.sampleRate)),
                                                   timeBase)
            try send(packet)
            endMillis = max(endMillis, ptsMillis + samples * 1000 / Int64(RecordedAudioTrack.sampleRate))
            audioFrames += 1
        } else {
            // A video frame's duration is the time to the next one, so each is held until the
            // next arrives (one frame, ~33 ms, of delay): MP4's samples and WebM's last block
            // get their real durations instead of the muxer's guess at each fragment's end.
            if let previous = lastMillis[.video] {
                lastVideoStep = ptsMillis - previous
                try sendPendingVideo(stepMillis: lastVideoStep)
            }
            av_packet_move_ref(pendingVideo, packet)
            endMillis = max(endMillis, ptsMillis)
            videoFrames += 1
        }
        lastMillis[track] = ptsMillis
    }

    public func write(_ frame: [UInt8], track: RecordingTrack, ptsMillis: Int64, isKeyFrame: Bool) throws {
        try frame.withUnsafeBytes { try write($0, track: track, ptsMillis: ptsMillis, isKeyFrame: isKeyFrame) }
    }

    /// Writes the trailer (the duration and, in WebM, the cues; in MP4 the mfra index), closes
    /// the file and renames `.part` to `path`. On failure the writer is failed, everything is
    /// freed and the `.part` is left for what it holds. On a writer that already failed it
    /// frees everything and throws `failed`.
    public func close() throws -> RecordingSummary {
        guard state == .open, let context else {
            release()
            throw RecordingWriteError.failed
        }
        if lastMillis[.video] != nil {
            // The last frame lasts as long as the one before it.
            try sendPendingVideo(stepMillis: lastVideoStep)
            endMillis = max(endMillis, lastMillis[.video]! + lastVideoStep)
        }
        let trailer = av_write_trailer(context)
        guard trailer >= 0 else { try fail(trailer, "av_write_trailer") }
        if let pb = context.pointee.pb {
            avio_flush(pb)
            if pb.pointee.error < 0 { try fail(pb.pointee.error, "avio_flush") }
        }
        let closed = avio_closep(&context.pointee.pb)
        guard closed >= 0 else { try fail(closed, "avio_closep") }
        state = .closed
        release()
        guard rename(partPath, path) == 0 else {
            throw RecordingWriteError.renameFailed(path: path, errno: errno)
        }
        var info = stat()
        let bytes: Int64 = stat(path, &info) == 0 ? Int64(info.st_size) : 0
        return RecordingSummary(path: path, durationMillis: endMillis, bytes: bytes, videoFrames: videoFrames,
                                audioFrames: audioFrames)
    }

    /// Gives the held video frame its duration and writes it.
    private func sendPendingVideo(stepMillis: Int64) throws {
        guard let pendingVideo, let videoStream, pendingVideo.pointee.data != nil else { return }
        pendingVideo.pointee.duration = av_rescale_q(stepMillis, Self.millis, videoStream.pointee.time_base)
        try send(pendingVideo)
    }

    /// Hands a packet to the interleaver, which takes its reference and leaves it blank, on
    /// success and on failure. An avio error (the disk) fails the writer as the call's would.
    private func send(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        guard let context else { throw RecordingWriteError.failed }
        let written = av_interleaved_write_frame(context, packet)
        guard written >= 0 else { try fail(written, "av_interleaved_write_frame") }
        if let pb = context.pointee.pb, pb.pointee.error < 0 { try fail(pb.pointee.error, "avio write") }
    }

    // MARK: - Opening

    private static func validate(container: RecordingContainer, video: RecordedVideoTrack?,
                                 audio: RecordedAudioTrack?) throws {
        guard video != nil || audio != nil else { throw RecordingWriteError.unsupportedTrack("no track") }
        if let video {
            guard video.codec.isVideo, container.accepts(video: video.codec) else {
                throw RecordingWriteError.unsupportedTrack("\(video.codec.rawValue) video in \(container.rawValue)")
            }
            guard video.width > 0, video.height > 0 else {
                throw RecordingWriteError.unsupportedTrack("video size \(video.width)x\(video.height)")
            }
            if video.codec == .h264 || video.codec == .av1, (video.extradata ?? []).isEmpty {
                throw RecordingWriteError.unsupportedTrack("\(video.codec.rawValue) without its extradata")
            }
        }
        if let audio {
            guard audio.codec == .opus else { throw RecordingWriteError.unsupportedTrack("\(audio.codec.rawValue) audio") }
            guard audio.channels == 1 || audio.channels == 2 else {
                throw RecordingWriteError.unsupportedTrack("\(audio.channels) Opus channels")
            }
        }
    }

    private func open() throws {
        var context: UnsafeMutablePointer<AVFormatContext>?
        let allocated = avformat_alloc_output_context2(&context, nil, container.muxerName, partPath)
        guard allocated >= 0, let context else { try fail(allocated, "avformat_alloc_output_context2") }
        self.context = context
        // Interleaving waits at most 1 s for the other track (default 10 s): a muted track
        // must not keep the other's packets off the disk.
        context.pointee.max_interleave_delta = 1_000_000
        if let video { videoStream = try addVideoStream(video) }
        if let audio { audioStream = try addAudioStream(audio) }
        packet = av_packet_alloc()
        pendingVideo = av_packet_alloc()
        guard packet != nil, pendingVideo != nil else { try fail(sluice_averror(ENOMEM), "av_packet_alloc") }
        let opened = avio_open(&context.pointee.pb, partPath, AVIO_FLAG_WRITE)
        guard opened >= 0 else { try fail(opened, "avio_open") }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in muxerOptions { av_dict_set(&options, key, value, 0) }
        let header = avformat_write_header(context, &options)
        guard header >= 0 else { try fail(header, "avformat_write_header") }
        // What the muxer did not take is left in the dictionary: an option this libavformat
        // does not know would silently cost the crash safety, so it is an error.
        if av_dict_count(options) > 0, let left = av_dict_get(options, "", nil, AV_DICT_IGNORE_SUFFIX) {
            state = .failed
            throw RecordingWriteError.libav(call: "avformat_write_header", code: sluice_averror(EINVAL),
                                            message: "muxer option not taken: \(String(cString: left.pointee.key))")
        }
        if let pb = context.pointee.pb {
            avio_flush(pb)
            if pb.pointee.error < 0 { try fail(pb.pointee.error, "avio_flush") }
        }
    }

    private func newStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let context, let stream = avformat_new_stream(context, nil) else {
            try fail(sluice_averror(ENOMEM), "avformat_new_stream")
        }
        // A request; the muxer may pick its own (MP4: 16000 for video, 48000 for audio) in
        // avformat_write_header, so timestamps are rescaled from ms to the stream's at write.
        stream.pointee.time_base = Self.millis
        return stream
    }

    private func addVideoStream(_ video: RecordedVideoTrack) throws -> UnsafeMutablePointer<AVStream> {
        let stream = try newStream()
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        switch video.codec {
        case .vp8: parameters.pointee.codec_id = AV_CODEC_ID_VP8
        case .vp9: parameters.pointee.codec_id = AV_CODEC_ID_VP9
        case .av1: parameters.pointee.codec_id = AV_CODEC_ID_AV1
        case .h264: parameters.pointee.codec_id = AV_CODEC_ID_H264
        case .opus: throw RecordingWriteError.unsupportedTrack("opus as video")
        }
        parameters.pointee.width = Int32(video.width)
        parameters.pointee.height = Int32(video.height)
        if let extradata = video.extradata, !extradata.isEmpty { try setExtradata(parameters, extradata) }
        return stream
    }

    private func addAudioStream(_ audio: RecordedAudioTrack) throws -> UnsafeMutablePointer<AVStream> {
        let stream = try newStream()
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = AV_CODEC_ID_OPUS
        parameters.pointee.sample_rate = Int32(RecordedAudioTrack.sampleRate)
        av_channel_layout_default(&parameters.pointee.ch_layout, Int32(audio.channels))
        // Matches OpusHead's pre-skip: the muxers write it as CodecDelay (WebM) or in dOps.
        parameters.pointee.initial_padding = Int32(OpusHead.preSkip)
        // WebRTC's usual 20 ms; only a hint (the MP4 muxer warns without one): each packet's own
        // duration comes from its TOC.
        parameters.pointee.frame_size = 960
        try setExtradata(parameters, OpusHead.bytes(channels: audio.channels))
        return stream
    }

    /// libavformat frees extradata with av_free and may read past its end (by up to the
    /// padding), so it is av_mallocz'd with AV_INPUT_BUFFER_PADDING_SIZE zero bytes after it.
    private func setExtradata(_ parameters: UnsafeMutablePointer<AVCodecParameters>, _ bytes: [UInt8]) throws {
        guard let memory = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            try fail(sluice_averror(ENOMEM), "av_mallocz")
        }
        let data = memory.assumingMemoryBound(to: UInt8.self)
        data.update(from: bytes, count: bytes.count)
        parameters.pointee.extradata = data
        parameters.pointee.extradata_size = Int32(bytes.count)
    }

    // MARK: - Failing and freeing

    /// Marks the writer failed and throws the mapped error; freeing is left to deinit or the
    /// throwing init, so a failed writer holds nothing once it is dropped.
    private func fail(_ code: Int32, _ call: String) throws -> Never {
        state = .failed
        throw RecordingWriteError.from(code: code, call: call, path: partPath)
    }

    private func release() {
        av_packet_free(&packet)
        av_packet_free(&pendingVideo)
        if let context {
            if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            // Frees the streams with their codec parameters and extradata.
            avformat_free_context(context)
            self.context = nil
        }
        videoStream = nil
        audioStream = nil
    }
}
