import SluiceRTP
import SluiceTransport
import SluiceWire

/// The publisher side of one stream: receives its RTP and RTCP, tells simulcast layers
/// apart, keeps reception statistics, detects key frames and sizes, answers with receiver
/// reports and key-frame requests, and hands each packet to the router.
final class Producer: WebRTCTransportDelegate, WorkerTickable {
    let parameters: EndpointParameters
    let transport: WebRTCTransport
    weak var router: Router?
    /// Tells the control plane (through the worker) what happened.
    var report: (WorkerEvent) -> Void = { _ in }

    /// What every received packet updates (the audio track, the video layers, the transport-cc
    /// record) lives in memory the producer owns (`receiveState`, freed in deinit), reached
    /// through the accessors below, not in stored `var`s: a class's stored property whose
    /// mutations call code the optimizer cannot see through (array copy-on-write, the stats'
    /// and NACK tracker's methods) is reached under a dynamic exclusivity check
    /// (swift_beginAccess, about 70 instructions) at every access, about six per packet here;
    /// memory behind a `let` pointer is not checked (docs/design.md, hot-path rule 8). Worker
    /// thread only, like the rest of the producer; no access overlaps another.
    private struct ReceiveState {
        var audio: AudioTrack?
        var layers: [VideoLayer]
        var feedback = TransportFeedbackGenerator()
    }
    private let receiveState: UnsafeMutablePointer<ReceiveState>
    private var audio: AudioTrack? {
        _read { yield receiveState.pointee.audio }
        _modify { yield &receiveState.pointee.audio }
    }
    private(set) var layers: [VideoLayer] {
        _read { yield receiveState.pointee.layers }
        _modify { yield &receiveState.pointee.layers }
    }
    private var feedback: TransportFeedbackGenerator {
        _read { yield receiveState.pointee.feedback }
        _modify { yield &receiveState.pointee.feedback }
    }
    private let videoParameters: TrackParameters?
    private let videoCodec: CodecKind
    private var announcedPublishing = false
    private var nextReport: UInt64 = 0
    private var rtcpScratch = [UInt8](repeating: 0, count: 1500)
    private let statsBoard: StatsBoard?
    /// Our SSRC as the sender of receiver reports and feedback.
    private let reporterSSRC: UInt32 = .random(in: 1...UInt32.max)
    /// Size of the top layer, for `resize` events.
    private var topSize = (width: 0, height: 0)
    private var nacksSent: UInt64 = 0
    private var quality: ConnectionQuality?
    /// The worst fraction lost of the last report interval, over every incoming stream.
    private var intervalLoss: Double = 0
    private let transportCCID: UInt8?
    /// The publish's bitrate cap (kbit/s), told to the publisher by REMB.
    private(set) var bitrateCapKbps: Int?
    /// Size and rate caps checked against what arrives, once a second.
    var capWatch = PublishCapWatch(caps: PublishCaps())

    struct AudioTrack {
        let parameters: TrackParameters
        var ssrc: UInt32?
        var stats = ReceiveStreamStats()
        var bitrate = BitrateMeter()
    }

    init(parameters: EndpointParameters, transport: WebRTCTransport, statsBoard: StatsBoard?) {
        self.parameters = parameters
        self.transport = transport
        self.statsBoard = statsBoard
        var layers: [VideoLayer] = []
        if let v = parameters.video {
            if v.simulcast.count > 1 {
                layers = v.simulcast.map { VideoLayer(rid: $0.rid, ssrc: $0.ssrc, rtxSSRC: $0.rtxSSRC) }
            } else {
                layers = [VideoLayer(rid: nil, ssrc: v.simulcast.first?.ssrc ?? v.remoteSSRCs.first,
                                     rtxSSRC: v.simulcast.first?.rtxSSRC ?? v.remoteRTXSSRCs.first)]
            }
        }
        receiveState = .allocate(capacity: 1)
        receiveState.initialize(to: ReceiveState(audio: parameters.audio.map { AudioTrack(parameters: $0, ssrc: $0.remoteSSRCs.first) },
                                                 layers: layers))
        videoParameters = parameters.video
        transportCCID = parameters.video?.feedback.transportCC == true ? parameters.video?.extensions.transportCC
            : (parameters.audio?.feedback.transportCC == true ? parameters.audio?.extensions.transportCC : nil)
        videoCodec = CodecKind(parameters.video?.codecName ?? "")
    }

    deinit {
        receiveState.deinitialize(count: 1)
        receiveState.deallocate()
    }

    var isSimulcast: Bool { layers.count > 1 }

    // MARK: Transport delegate

    func transportDidConnect(_ transport: WebRTCTransport) {
        for i in layers.indices { requestKeyFrame(layer: i) }
    }

    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) {
        report(.failed(parameters.handle, FailureReason(failure)))
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        guard let packet = RTPPacket(parsing: bytes) else { return }
        if let id = transportCCID, let value = packet.extensionValue(id: id),
           let sequence = TransportWideSequenceNumber.read(UnsafeRawBufferPointer(value)) {
            feedback.record(sequence: sequence, arrival: now)
        }
        let ssrc = packet.ssrc
        if let a = audio, a.ssrc == ssrc || (a.ssrc == nil && packet.payloadType == a.parameters.payloadType) {
            if audio!.ssrc == nil { audio!.ssrc = ssrc }
            receiveAudio(packet, now: now)
        } else if let video = videoParameters, let rtx = video.rtxPayloadType, packet.payloadType == rtx {
            receiveRetransmission(bytes, packet: packet, video: video, now: now)
        } else if let video = videoParameters, let layer = videoLayer(of: packet, video) {
            receiveVideo(packet, layer: layer, now: now)
        }
        // Anything else (unknown SSRCs) is not forwarded.
    }

    /// An RTX packet (RFC 4588): its first two payload bytes are the original sequence
    /// number. It is turned back into the original packet in place and handled as if it had
    /// arrived late, so every player gets it under the number it expects.
    private func receiveRetransmission(_ bytes: UnsafeMutableRawBufferPointer, packet: RTPPacket,
                                       video: TrackParameters, now: UInt64) {
        guard packet.payloadLength > 2, let layer = rtxLayer(of: packet, video) else { return }
        let payload = packet.payload
        let original = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard let mediaSSRC = layers[layer].ssrc else { return }
        // Move the header two bytes forward over the OSN; the payload then follows it.
        let header = packet.payloadOffset
        let base = bytes.baseAddress!
        (base + 2).copyMemory(from: base, byteCount: header)
        let restored = UnsafeMutableRawBufferPointer(rebasing: bytes[2..<bytes.count])
        guard let repaired = RTPPacket(parsing: restored) else { return }
        repaired.payloadType = video.payloadType
        repaired.sequenceNumber = original
        repaired.ssrc = mediaSSRC
        receiveVideo(repaired, layer: layer, now: now, isRetransmission: true)
    }

    /// The layer an RTX packet repairs: by its SSRC once known, else its repaired-rid, else
    /// (one layer) the only one.
    private func rtxLayer(of packet: RTPPacket, _ video: TrackParameters) -> Int? {
        var rid: RTPToken?
        if isSimulcast, let id = video.extensions.repairedRid, let value = packet.extensionValue(id: id) {
            rid = RTPToken(UnsafeRawBufferPointer(value))
        }
        return SimulcastDemuxer.rtxLayer(ssrc: packet.ssrc, repairedRid: rid, layers: &layers)
    }

    /// The stored copy of a packet of `layer`, for a player's NACK.
    func storedPacket(layer: Int, sequence: UInt16) -> UnsafeMutableRawBufferPointer? {
        guard layers.indices.contains(layer) else { return nil }
        return layers[layer].retransmissions.packet(sequence: sequence, pool: transport.worker.pool)
    }

    /// Gives the retransmission buffers back to the worker's pool.
    func releaseBuffers() {
        for i in layers.indices { layers[i].retransmissions.release(to: transport.worker.pool) }
    }

    /// Which layer a video packet belongs to: by SSRC once known, else by its rid header
    /// extension, else (no simulcast) by payload type.
    @inline(__always)
    private func videoLayer(of packet: RTPPacket, _ video: TrackParameters) -> Int? {
        var rid: RTPToken?
        if isSimulcast, let id = video.extensions.rid, let value = packet.extensionValue(id: id) {
            rid = RTPToken(UnsafeRawBufferPointer(value))
        }
        return SimulcastDemuxer.layer(ssrc: packet.ssrc, payloadType: packet.payloadType, rid: rid,
                                      mediaPayloadType: video.payloadType, layers: &layers)
    }

    private func announcePublishing() {
        if !announcedPublishing {
            announcedPublishing = true
            report(.publishing(parameters.handle))
        }
    }

    @inline(__always)
    private func receiveAudio(_ packet: RTPPacket, now: UInt64) {
        announcePublishing()
        let clockRate = audio!.parameters.clockRate
        var audioLevel: UInt8?
        if let id = audio!.parameters.extensions.audioLevel, let value = packet.extensionValue(id: id), value.count >= 1 {
            audioLevel = value[0]
        }
        audio!.stats.record(sequence: packet.sequenceNumber, timestamp: packet.timestamp, size: packet.buffer.count,
                            clockRate: clockRate, now: now, keyFrame: false)
        guard packet.payloadLength > 0, let router else { return }
        let requests = router.forward(ForwardedPacket(packet: packet, kind: .audio, layer: 0, isKeyFrame: false,
                                                      temporalLayer: nil, vp8: nil, clockRate: clockRate,
                                                      audioLevel: audioLevel, now: now))
        if !requests.isEmpty { requestKeyFrames(requests) }
    }

    @inline(__always)
    private func receiveVideo(_ packet: RTPPacket, layer: Int, now: UInt64, isRetransmission: Bool = false) {
        announcePublishing()
        // A packet that arrived already goes no further: a browser probes its bandwidth by
        // resending packets over RTX ("redundant payloads"), and networks duplicate. Forwarded,
        // players' SRTP replay checks would drop the copies, and transport-cc reads them as lost.
        guard !layers[layer].retransmissions.holds(sequence: packet.sequenceNumber) else { return }
        layers[layer].nacks.received(packet.sequenceNumber, now: now)
        layers[layer].retransmissions.store(UnsafeRawBufferPointer(packet.buffer), sequence: packet.sequenceNumber,
                                            pool: transport.worker.pool)
        let payload = UnsafeRawBufferPointer(packet.payload)
        let keyFrame: Bool
        var temporalLayer: UInt8?
        var vp8: VP8PayloadDescriptor?
        if videoCodec == .vp8, let descriptor = VP8PayloadDescriptor(parsing: payload) {
            vp8 = descriptor
            keyFrame = descriptor.isKeyFrame
            temporalLayer = descriptor.temporalLayerIndex
            if let tid = temporalLayer, Int(tid) + 1 > layers[layer].temporalLayers {
                layers[layer].temporalLayers = Int(tid) + 1
            }
        } else {
            keyFrame = videoCodec.isKeyFrame(payload)
        }
        if keyFrame { layers[layer].keyFrameRequests.keyFrameArrived() }
        if keyFrame, let size = videoCodec.keyFrameSize(payload),
           size.width != layers[layer].width || size.height != layers[layer].height {
            layers[layer].width = size.width
            layers[layer].height = size.height
            layerSizeChanged()
        }
        let clockRate = videoParameters!.clockRate
        if !isRetransmission {
            layers[layer].stats.record(sequence: packet.sequenceNumber, timestamp: packet.timestamp,
                                       size: packet.buffer.count, clockRate: clockRate, now: now, keyFrame: keyFrame)
        }
        layers[layer].frames.record(timestamp: packet.timestamp)
        layers[layer].lastPacketMicros = now
        // Padding-only packets (bandwidth probes) carry nothing for players.
        guard packet.payloadLength > 0, let router else { return }
        // Key frames the players asked for meanwhile go out now, after the fan-out.
        let requests = router.forward(ForwardedPacket(packet: packet, kind: .video, layer: layer, isKeyFrame: keyFrame,
                                                      temporalLayer: temporalLayer, vp8: vp8, clockRate: clockRate,
                                                      audioLevel: nil, now: now))
        if !requests.isEmpty { requestKeyFrames(requests) }
    }

    /// `limitExceeded` to the publisher for a cap its top layer stayed over, and the stop
    /// when the app asks for it (the control plane ends the handle on `.failed`).
    private func checkCaps(now: UInt64) {
        guard capWatch.caps.maxWidth != nil || capWatch.caps.maxHeight != nil || capWatch.caps.maxFps != nil,
              let top = layers.max(by: { $0.width * $0.height < $1.width * $1.height }) else { return }
        for exceeded in capWatch.observe(width: top.width, height: top.height, fps: top.frames.fps, now: now) {
            report(.limitExceeded(parameters.handle, limit: exceeded.limit, value: exceeded.value, max: exceeded.max))
            if capWatch.caps.stopWhenExceeded {
                report(.failed(parameters.handle, .limitExceeded(exceeded.limit)))
                return
            }
        }
    }

    /// The top layer's size is the stream's size: report a change as `resize`.
    private func layerSizeChanged() {
        guard let top = layers.max(by: { $0.width * $0.height < $1.width * $1.height }),
              top.width > 0, top.width != topSize.width || top.height != topSize.height else { return }
        topSize = (top.width, top.height)
        report(.resize(stream: parameters.stream, width: top.width, height: top.height))
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTCP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(bytes))
        while let (packet, _) = iterator.next() {
            guard packet.packetType == RTCPPacketType.senderReport,
                  let report = RTCPSenderReport(parsing: packet.bytes) else { continue }
            if audio?.ssrc == report.ssrc {
                audio!.stats.recordSenderReport(ntp: report.ntpTimestamp, now: now)
            } else if let i = layers.firstIndex(where: { $0.ssrc == report.ssrc }) {
                layers[i].stats.recordSenderReport(ntp: report.ntpTimestamp, now: now)
                layers[i].senderReportMicros = (report.ntpTimestamp >> 32) * 1_000_000
                    + ((report.ntpTimestamp & 0xffff_ffff) * 1_000_000) >> 32
                layers[i].senderReportRTP = report.rtpTimestamp
            }
        }
    }

    // MARK: Layers as the selector sees them

    func selectorLayers(now: UInt64) -> [LayerSelector.Layer] {
        layers.indices.map { i in
            LayerSelector.Layer(index: i, width: layers[i].width, height: layers[i].height, fps: layers[i].frames.fps,
                                bitrateKbps: layers[i].bitrate.kbps, active: layers[i].isActive(now: now))
        }
    }

    /// The publisher's wall-clock time (µs) of an RTP timestamp of `layer`, from its last
    /// sender report; nil before one arrived. Layers have their own RTP clocks, so a switch
    /// maps both sides through their reports to keep the player's timestamps true.
    func captureMicros(layer: Int, timestamp: UInt32) -> Int64? {
        guard layers.indices.contains(layer), layers[layer].senderReportMicros > 0,
              let clockRate = videoParameters?.clockRate else { return nil }
        let delta = Int64(Int32(bitPattern: timestamp &- layers[layer].senderReportRTP))
        return Int64(layers[layer].senderReportMicros) + delta * 1_000_000 / Int64(clockRate)
    }

    /// Frame rate and temporal layer count of a layer (1 when it has no temporal layers).
    func layerTiming(_ layer: Int) -> (fps: Double, temporalLayers: Int) {
        layers.indices.contains(layer) ? (layers[layer].frames.fps, layers[layer].temporalLayers) : (0, 1)
    }

    func layerSize(_ layer: Int) -> (width: Int, height: Int) {
        layers.indices.contains(layer) ? (layers[layer].width, layers[layer].height) : (0, 0)
    }

    // MARK: Key frames and reports

    /// What players asked for, through the router.
    func requestKeyFrames(_ requests: KeyFrameRequests) {
        for i in layers.indices where requests.contains(layer: i) { requestKeyFrame(layer: i) }
    }

    /// PLI for one layer, gated per layer (KeyFrameRequestGate).
    func requestKeyFrame(layer: Int) {
        guard layers.indices.contains(layer), let ssrc = layers[layer].ssrc, transport.isConnected,
              layers[layer].keyFrameRequests.shouldRequest(now: MonotonicClock.nowMicros()) else { return }
        let pli = RTCPPictureLossIndication(senderSSRC: reporterSSRC, mediaSSRC: ssrc)
        sendRTCP { writer in pli.write(into: &writer) }
    }

    func setBitrateCap(_ kbps: Int?) {
        bitrateCapKbps = kbps
        nextReport = 0
    }

    func tick(now: UInt64) {
        if transport.isConnected, videoParameters?.feedback.nack == true { sendNacks(now: now) }
        if transport.isConnected, let mediaSSRC = layers.first?.ssrc ?? audio?.ssrc,
           let twcc = feedback.feedback(now: now, senderSSRC: reporterSSRC, mediaSSRC: mediaSSRC) {
            sendRTCP { writer in twcc.write(into: &writer) }
        }
        guard now >= nextReport else { return }
        nextReport = now + 1_000_000
        if let total = audio?.stats.bytes { audio!.bitrate.sample(totalBytes: total, now: now) }
        for i in layers.indices {
            layers[i].bitrate.sample(totalBytes: layers[i].stats.bytes, now: now)
            layers[i].frames.sample(now: now)
        }
        if transport.isConnected {
            sendReceiverReport(now: now)
            sendBitrateCap()
        }
        if let requests = router?.layersMeasured(selectorLayers(now: now), now: now), !requests.isEmpty {
            requestKeyFrames(requests)
        }
        checkCaps(now: now)
        updateQuality()
        statsBoard?.publish(stats(now: now))
    }

    private func sendReceiverReport(now: UInt64) {
        var blocks: [RTCPReportBlock] = []
        intervalLoss = 0
        func block(_ stats: inout ReceiveStreamStats, ssrc: UInt32) {
            let (fraction, cumulative) = stats.reportInterval()
            intervalLoss = max(intervalLoss, Double(fraction) / 256)
            blocks.append(RTCPReportBlock(
                ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(clamping: cumulative),
                extendedHighestSequenceNumber: UInt32(truncatingIfNeeded: stats.highestSequence),
                jitter: stats.jitter, lastSenderReport: stats.lastSenderReport,
                delaySinceLastSenderReport: stats.delaySinceLastSenderReport(now: now)))
        }
        if let ssrc = audio?.ssrc { block(&audio!.stats, ssrc: ssrc) }
        for i in layers.indices {
            if let ssrc = layers[i].ssrc { block(&layers[i].stats, ssrc: ssrc) }
        }
        guard !blocks.isEmpty else { return }
        let rr = RTCPReceiverReport(ssrc: reporterSSRC, reportBlocks: blocks)
        sendRTCP { writer in rr.write(into: &writer) }
    }

    /// NACKs the publisher for what is missing upstream, per layer.
    private func sendNacks(now: UInt64) {
        for i in layers.indices where layers[i].nacks.missingCount > 0 {
            guard let ssrc = layers[i].ssrc else { continue }
            let lost = layers[i].nacks.due(now: now)
            guard !lost.isEmpty else { continue }
            nacksSent += UInt64(lost.count)
            let nack = RTCPGenericNACK(senderSSRC: reporterSSRC, mediaSSRC: ssrc, lostSequenceNumbers: lost)
            sendRTCP { writer in nack.write(into: &writer) }
        }
    }

    /// REMB carries the publish's cap; a browser keeps its send rate (all layers) under it.
    private func sendBitrateCap() {
        guard let cap = bitrateCapKbps else { return }
        let ssrcs = layers.compactMap(\.ssrc)
        guard !ssrcs.isEmpty else { return }
        let remb = RTCPREMB(senderSSRC: reporterSSRC, bitrate: UInt64(cap) * 1000, ssrcs: ssrcs)
        sendRTCP { writer in remb.write(into: &writer) }
    }

    private func sendRTCP(_ build: (inout ByteWriter) -> Void) {
        rtcpScratch.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            build(&writer)
            guard !writer.overflowed else { return }
            transport.sendRTCP(UnsafeRawBufferPointer(rebasing: raw[0..<writer.offset]))
        }
    }

    /// What the server receives from the publisher, as a score: loss and jitter (no RTT: a
    /// sending-only browser reports none).
    private func updateQuality() {
        guard announcedPublishing else { return }
        var jitter = audio.map { $0.stats.jitterMillis(clockRate: $0.parameters.clockRate) } ?? 0
        for layer in layers { jitter = max(jitter, layer.stats.jitterMillis(clockRate: videoParameters?.clockRate ?? 90_000)) }
        let current = ConnectionQuality(lossFraction: intervalLoss, jitterMs: jitter, rttMs: 0)
        if current.level != quality?.level {
            report(.connectionQuality(parameters.handle, score: current.score, level: current.level))
        }
        quality = current
    }

    /// The stream's layers as the stats show them, to the publisher and to every player.
    func layerStats(now: UInt64) -> [LayerStats] {
        layers.enumerated().map { i, layer in
            var entry = LayerStats(index: i, rid: layer.rid?.description, width: layer.width, height: layer.height,
                                   fps: layer.frames.fps, bitrateKbps: layer.bitrate.kbps, active: layer.isActive(now: now))
            entry.temporalLayers = layer.temporalLayers
            return entry
        }
    }

    func stats(now: UInt64) -> HandleStats {
        var audioStats: KindStats?
        if let audio {
            var s = KindStats()
            s.packets = audio.stats.packets
            s.bytes = audio.stats.bytes
            s.bitrateKbps = audio.bitrate.kbps
            s.packetsLost = audio.stats.cumulativeLost
            s.jitterMs = audio.stats.jitterMillis(clockRate: audio.parameters.clockRate)
            s.codec = audio.parameters.codecName
            audioStats = s
        }
        var videoStats: KindStats?
        if let video = videoParameters {
            var s = KindStats()
            s.codec = video.codecName
            for layer in layers {
                s.packets += layer.stats.packets
                s.bytes += layer.stats.bytes
                s.bitrateKbps += layer.bitrate.kbps
                s.packetsLost += layer.stats.cumulativeLost
                s.keyFrames += layer.stats.keyFrames
                s.jitterMs = max(s.jitterMs, layer.stats.jitterMillis(clockRate: video.clockRate))
            }
            s.layers = layerStats(now: now)
            s.nacks = nacksSent
            // A publisher's size, fps and `layer` are those of its top layer.
            if let top = layers.indices.max(by: { layers[$0].width * layers[$0].height < layers[$1].width * layers[$1].height }) {
                s.width = layers[top].width
                s.height = layers[top].height
                s.fps = layers[top].frames.fps
                s.layer = top
            }
            videoStats = s
        }
        var stats = HandleStats(handle: parameters.handle, stream: parameters.stream, role: .publish,
                                audio: audioStats, video: videoStats)
        stats.connectionQuality = quality
        stats.transportProtocol = transport.selectedPath.map { $0.isTCP ? "tcp" : "udp" }
        stats.tcpSendDroppedPackets = transport.tcpSendDroppedPackets
        return stats
    }
}
