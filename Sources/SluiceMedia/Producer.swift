import SluiceRTP
import SluiceTransport
import SluiceWire

/// The publisher side of one stream: receives its RTP and RTCP, keeps reception statistics,
/// detects key frames, answers with receiver reports and key-frame requests, and hands each
/// packet to the router.
final class Producer: WebRTCTransportDelegate, WorkerTickable {
    let parameters: EndpointParameters
    let transport: WebRTCTransport
    weak var router: Router?
    /// Tells the control plane (through the worker) what happened.
    var report: (WorkerEvent) -> Void = { _ in }

    private var audio: Track?
    private var video: Track?
    private var announcedPublishing = false
    private var lastKeyFrameRequest: UInt64 = 0
    private var nextReport: UInt64 = 0
    private var rtcpScratch = [UInt8](repeating: 0, count: 1500)
    private let statsBoard: StatsBoard?
    /// Our SSRC as the sender of receiver reports and feedback.
    private let reporterSSRC: UInt32 = .random(in: 1...UInt32.max)

    /// Minimum spacing of key-frame requests to the publisher: a burst of players joining
    /// costs the publisher one key frame, not one each.
    static let keyFrameRequestInterval: UInt64 = 300_000

    struct Track {
        let parameters: TrackParameters
        let codec: CodecKind
        var ssrc: UInt32?
        var stats = ReceiveStreamStats()
        var bitrate = BitrateMeter()
        var width = 0
        var height = 0
    }

    init(parameters: EndpointParameters, transport: WebRTCTransport, statsBoard: StatsBoard?) {
        self.parameters = parameters
        self.transport = transport
        self.statsBoard = statsBoard
        if let a = parameters.audio { audio = Track(parameters: a, codec: CodecKind(a.codecName), ssrc: a.remoteSSRCs.first) }
        if let v = parameters.video { video = Track(parameters: v, codec: CodecKind(v.codecName), ssrc: v.remoteSSRCs.first) }
    }

    // MARK: Transport delegate

    func transportDidConnect(_ transport: WebRTCTransport) {
        requestKeyFrame()
    }

    func transport(_ transport: WebRTCTransport, didFail info: String) {
        report(.failed(parameters.handle, info: info))
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        guard let packet = RTPPacket(parsing: bytes) else { return }
        let ssrc = packet.ssrc
        let payloadType = packet.payloadType
        if let a = audio, a.ssrc == ssrc || (a.ssrc == nil && payloadType == a.parameters.payloadType) {
            if audio!.ssrc == nil { audio!.ssrc = ssrc }
            receive(packet, kind: .audio, now: now)
        } else if let v = video, v.ssrc == ssrc || (v.ssrc == nil && payloadType == v.parameters.payloadType) {
            if video!.ssrc == nil { video!.ssrc = ssrc }
            receive(packet, kind: .video, now: now)
        }
        // Anything else (RTX before NACK support, unknown SSRCs, extra simulcast layers) is
        // not forwarded.
    }

    @inline(__always)
    private func receive(_ packet: RTPPacket, kind: MediaKind, now: UInt64) {
        if !announcedPublishing {
            announcedPublishing = true
            report(.publishing(parameters.handle))
        }
        let payload = UnsafeRawBufferPointer(packet.payload)
        var keyFrame = false
        var audioLevel: UInt8?
        let clockRate: UInt32
        if kind == .video {
            let codec = video!.codec
            keyFrame = codec.isKeyFrame(payload)
            if keyFrame, let size = codec.keyFrameSize(payload) {
                video!.width = size.width
                video!.height = size.height
            }
            clockRate = video!.parameters.clockRate
            video!.stats.record(sequence: packet.sequenceNumber, timestamp: packet.timestamp, size: packet.buffer.count,
                                clockRate: clockRate, now: now, keyFrame: keyFrame)
        } else {
            clockRate = audio!.parameters.clockRate
            if let id = audio!.parameters.extensions.audioLevel, let value = packet.extensionValue(id: id), value.count >= 1 {
                audioLevel = value[0]
            }
            audio!.stats.record(sequence: packet.sequenceNumber, timestamp: packet.timestamp, size: packet.buffer.count,
                                clockRate: clockRate, now: now, keyFrame: false)
        }
        // Padding-only packets (bandwidth probes) carry nothing for players.
        guard packet.payloadLength > 0 else { return }
        let forwarded = ForwardedPacket(packet: packet, kind: kind, isKeyFrame: keyFrame, clockRate: clockRate,
                                        audioLevel: audioLevel, now: now)
        router?.forward(forwarded)
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTCP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(bytes))
        while let (packet, _) = iterator.next() {
            guard packet.packetType == RTCPPacketType.senderReport,
                  let report = RTCPSenderReport(parsing: packet.bytes) else { continue }
            if audio?.ssrc == report.ssrc {
                audio!.stats.recordSenderReport(ntp: report.ntpTimestamp, now: now)
            } else if video?.ssrc == report.ssrc {
                video!.stats.recordSenderReport(ntp: report.ntpTimestamp, now: now)
            }
        }
    }

    // MARK: Key frames and reports

    func requestKeyFrame() {
        guard let ssrc = video?.ssrc, transport.isConnected else { return }
        let now = MonotonicClock.nowMicros()
        guard now - lastKeyFrameRequest >= Self.keyFrameRequestInterval || lastKeyFrameRequest == 0 else { return }
        lastKeyFrameRequest = now
        let pli = RTCPPictureLossIndication(senderSSRC: reporterSSRC, mediaSSRC: ssrc)
        sendRTCP { writer in pli.write(into: &writer) }
    }

    func tick(now: UInt64) {
        guard now >= nextReport else { return }
        nextReport = now + 1_000_000
        if let total = audio?.stats.bytes { audio!.bitrate.sample(totalBytes: total, now: now) }
        if let total = video?.stats.bytes { video!.bitrate.sample(totalBytes: total, now: now) }
        if transport.isConnected { sendReceiverReport(now: now) }
        statsBoard?.publish(stats())
    }

    private func sendReceiverReport(now: UInt64) {
        var blocks: [RTCPReportBlock] = []
        for kind in [MediaKind.audio, .video] {
            guard var track = kind == .audio ? audio : video, let ssrc = track.ssrc else { continue }
            let (fraction, cumulative) = track.stats.reportInterval()
            blocks.append(RTCPReportBlock(
                ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(clamping: cumulative),
                extendedHighestSequenceNumber: UInt32(truncatingIfNeeded: track.stats.highestSequence),
                jitter: track.stats.jitter, lastSenderReport: track.stats.lastSenderReport,
                delaySinceLastSenderReport: track.stats.delaySinceLastSenderReport(now: now)))
            if kind == .audio { audio = track } else { video = track }
        }
        guard !blocks.isEmpty else { return }
        let rr = RTCPReceiverReport(ssrc: reporterSSRC, reportBlocks: blocks)
        sendRTCP { writer in rr.write(into: &writer) }
    }

    private func sendRTCP(_ build: (inout ByteWriter) -> Void) {
        rtcpScratch.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            build(&writer)
            guard !writer.overflowed else { return }
            transport.sendRTCP(UnsafeRawBufferPointer(rebasing: raw[0..<writer.offset]))
        }
    }

    func stats() -> HandleStats {
        func kindStats(_ track: Track?) -> KindStats? {
            guard let track else { return nil }
            var s = KindStats()
            s.packets = track.stats.packets
            s.bytes = track.stats.bytes
            s.bitrateKbps = track.bitrate.kbps
            s.packetsLost = track.stats.cumulativeLost
            s.jitterMs = track.stats.jitterMillis(clockRate: track.parameters.clockRate)
            s.codec = track.parameters.codecName
            s.keyFrames = track.stats.keyFrames
            s.width = track.width
            s.height = track.height
            return s
        }
        return HandleStats(handle: parameters.handle, stream: parameters.stream, role: .publish,
                           audio: kindStats(audio), video: kindStats(video))
    }
}
