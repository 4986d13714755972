import SluiceRTP
import SluiceTransport
import SluiceWire
import SluiceLog

/// The publisher side of one stream: receives its RTP and RTCP, tells simulcast layers
/// apart, keeps reception statistics, detects key frames and sizes, answers with receiver
/// reports and key-frame requests, and hands each packet to the router.
/// Its parts: this file (state and the receive path), `Producer+Layers.swift` (the layers as
/// players and the selector see them), `Producer+Reports.swift` (key-frame requests,
/// receiver reports, NACKs, REMB, events and stats, once a tick) and `Producer+Dynacast.swift`
/// (which layers have a taker).
final class Producer: WebRTCTransportDelegate, WorkerTickable {
    let parameters: EndpointParameters
    let transport: WebRTCTransport
    weak var router: Router?
    /// Tells the control plane (through the worker) what happened.
    var report: (WorkerEvent) -> Void = { _ in }

    /// What every received packet updates (the audio track, the video layers, the transport-cc
    /// record) lives in memory the producer owns (`state`, freed in deinit), reached
    /// through the accessors below, not in stored `var`s: a class's stored property whose
    /// mutations call code the optimizer cannot see through (array copy-on-write, the stats'
    /// and NACK tracker's methods) is reached under a dynamic exclusivity check
    /// (swift_beginAccess, about 70 instructions) at every access, about six per packet here;
    /// memory behind a `let` pointer is not checked (docs/design.md, hot-path rule 8). Worker
    /// thread only, like the rest of the producer; no access overlaps another.
    struct ReceiveState {
        var audio: AudioTrack?
        var layers: [VideoLayer]
        var feedback = TransportFeedbackGenerator()
        /// When the last RTP packet that carries media arrived (not padding); nil before the
        /// first packet. Read once a second by `checkRTPActivity`.
        var lastMediaMicros: UInt64?
        /// Dynacast (`apps[].dynacast`): set for a simulcast publisher whose app has it on.
        /// Here, not a stored `var`: the tick reads it every 10 ms.
        var layerPauses: LayerPauses?
        /// The video is encrypted end to end (said at publish, or found: `foundEncrypted`):
        /// its payload's key-frame bit is no key frame's sign where the descriptor gives one.
        var encrypted = false
    }
    let state: OwnedState<ReceiveState>
    /// The layers as they are now: a copy, for the tests and off the packet path.
    var layers: [VideoLayer] { state.layers }
    let videoParameters: TrackParameters?
    private let videoCodec: CodecKind
    /// The publisher negotiated the dependency descriptor, or sends one VP9 encoding: its
    /// layers carry template tables. A `let`, so a packet asks this rather than look into its
    /// layer's optional table.
    private let readsDependencies: Bool
    var announcedPublishing = false
    var nextReport: UInt64 = 0
    var rtcpScratch = [UInt8](repeating: 0, count: 1500)
    let statsBoard: StatsBoard?
    /// Our SSRC as the sender of receiver reports and feedback.
    let reporterSSRC: UInt32 = .random(in: 1...UInt32.max)
    /// Size of the top layer, for `resize` events.
    var topSize = (width: 0, height: 0)
    var nacksSent: UInt64 = 0
    var quality: ConnectionQuality?
    /// The worst fraction lost of the last report interval, over every incoming stream.
    var intervalLoss: Double = 0
    private let transportCCID: UInt8?
    /// The publish's bitrate cap (kbit/s), told to the publisher by REMB.
    var bitrateCapKbps: Int?
    /// Size and rate caps checked against what arrives, once a second.
    var capWatch = PublishCapWatch(caps: PublishCaps())
    /// `rtc.rtpTimeoutSeconds`: fail a publisher whose media stopped (0: off).
    var rtpActivity = RTPActivityWatch(timeoutMicros: 0)
    /// Edge: set when this producer's publisher is a relay link from the stream's origin.
    var linkWatch: LinkSourceWatch?
    /// Edge: the layers this link's players need, as told to the origin.
    var linkRequest = LinkLayerRequest()
    /// Edge: the link's packets per layer, for /metrics (set with `linkWatch`).
    var linkCounters: LinkLayerCounters?
    /// Called once its transport connected (a link source's data starts then: WorkerStreams).
    var connected: (() -> Void)?

    struct AudioTrack {
        let parameters: TrackParameters
        var ssrc: UInt32?
        var stats = ReceiveStreamStats()
        var bitrate = BitrateMeter()
        var level = AudioLevelMeter()
        /// The level as last reported (`WorkerEvent.audioLevel`), and when the next report is due.
        var reportedLevel: Double = .nan
        var reportedVoice: Double = .nan
        var nextLevelReport: UInt64 = 0
        var levelReported: UInt64 = 0
        /// Packets under the RED payload type, and those that did not parse (dropped).
        var redPackets: UInt64 = 0
        var malformedRED: UInt64 = 0
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
        // One VP9 encoding without the descriptor: its layers come from the payload descriptor.
        let readsVP9 = parameters.video.map { $0.extensions.dependencyDescriptor == nil && layers.count == 1
            && CodecKind($0.codecName) == .vp9 } ?? false
        if parameters.video?.extensions.dependencyDescriptor != nil || readsVP9 {
            for i in layers.indices {
                layers[i].dependencies = DependencyTemplateTable()
                layers[i].targetMeters = DecodeTargetMeters()
                if readsVP9 { layers[i].vp9 = VP9Dependency() }
            }
        }
        state = OwnedState(ReceiveState(audio: parameters.audio.map { AudioTrack(parameters: $0, ssrc: $0.remoteSSRCs.first) },
                                                 layers: layers, encrypted: parameters.video?.encrypted ?? false))
        videoParameters = parameters.video
        transportCCID = parameters.video?.feedback.transportCC == true ? parameters.video?.extensions.transportCC
            : (parameters.audio?.feedback.transportCC == true ? parameters.audio?.extensions.transportCC : nil)
        videoCodec = CodecKind(parameters.video?.codecName ?? "")
        readsDependencies = parameters.video?.extensions.dependencyDescriptor != nil || readsVP9
    }

    var isSimulcast: Bool { state.layers.count > 1 }

    // MARK: Transport delegate

    func transportDidConnect(_ transport: WebRTCTransport) {
        // A link's origin first hears which layers to forward, then the key-frame requests.
        if linkWatch != nil { sendWantedLayers(now: MonotonicClock.nowMicros()) }
        for i in state.layers.indices { requestKeyFrame(layer: i) }
        connected?()
    }

    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) {
        report(.failed(parameters.handle, FailureReason(failure)))
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        guard let packet = RTPPacket(parsing: bytes) else { return }
        if let id = transportCCID, let value = packet.extensionValue(id: id),
           let sequence = TransportWideSequenceNumber.read(UnsafeRawBufferPointer(value)) {
            state.feedback.record(sequence: sequence, arrival: now)
        }
        let ssrc = packet.ssrc
        if let a = state.audio, a.ssrc == ssrc || (a.ssrc == nil && packet.payloadType == a.parameters.payloadType) {
            if state.audio!.ssrc == nil { state.audio!.ssrc = ssrc }
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
        guard let mediaSSRC = state.layers[layer].ssrc else { return }
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
        return SimulcastDemuxer.rtxLayer(ssrc: packet.ssrc, repairedRid: rid, layers: &state.layers)
    }

    /// The stored copy of a packet of `layer`, for a player's NACK.
    func storedPacket(layer: Int, sequence: UInt16) -> UnsafeMutableRawBufferPointer? {
        guard state.layers.indices.contains(layer) else { return nil }
        return state.layers[layer].retransmissions.packet(sequence: sequence, shared: transport.worker.shared)
    }

    /// Gives the retransmission buffers back to the worker's pool.
    func releaseBuffers() {
        for i in state.layers.indices { state.layers[i].retransmissions.release(to: transport.worker.shared) }
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
                                      mediaPayloadType: video.payloadType, layers: &state.layers)
    }

    /// The first RTP packet, of any kind, announces the publish and starts the RTP-activity
    /// clock, so a publisher that never sends media after it is caught as well.
    private func announcePublishing(now: UInt64) {
        if !announcedPublishing {
            announcedPublishing = true
            state.lastMediaMicros = now
            report(.publishing(parameters.handle))
        }
    }

    @inline(__always)
    private func receiveAudio(_ packet: RTPPacket, now: UInt64) {
        announcePublishing(now: now)
        let clockRate = state.audio!.parameters.clockRate
        var audioLevel: UInt8?
        if let id = state.audio!.parameters.extensions.audioLevel {
            if let value = packet.extensionValue(id: id), value.count >= 1 { audioLevel = value[0] }
            // The level without the voice-activity bit (RFC 6464's V, the top bit).
            state.audio!.level.record(audioLevel.map { $0 & 0x7f }, now: now)
        }
        state.audio!.stats.record(sequence: packet.sequenceNumber, timestamp: packet.timestamp, size: packet.buffer.count,
                            clockRate: clockRate, now: now, keyFrame: false)
        guard packet.payloadLength > 0 else { return }
        // RED is parsed once here for every sink; a RED packet that does not parse goes no
        // further (a player stripping it would have no primary to send).
        var red: REDPayload?
        if packet.payloadType == state.audio!.parameters.redPayloadType {
            red = REDPayload(parsing: UnsafeRawBufferPointer(packet.payload), redPayloadType: packet.payloadType)
            guard red != nil else {
                state.audio!.malformedRED &+= 1
                // Once per publisher: a sender that gets RED wrong gets it wrong on every packet.
                if state.audio!.malformedRED == 1 {
                    transport.worker.log?.warn("stream \(parameters.stream): publisher \(parameters.handle) sent an Opus "
                                               + "RED packet whose blocks do not fit it; such packets are dropped",
                                               [.stream(parameters.stream), .handle("\(parameters.handle)")])
                }
                return
            }
            state.audio!.redPackets &+= 1
        }
        state.lastMediaMicros = now
        guard let router else { return }
        var item = ForwardedPacket(packet: packet, kind: .audio, layer: 0, isKeyFrame: false, temporalLayer: nil, vp8: nil,
                                   clockRate: clockRate, audioLevel: audioLevel, now: now)
        item.red = red
        let requests = router.forward(item)
        if !requests.isEmpty { requestKeyFrames(requests) }
    }

    @inline(__always)
    private func receiveVideo(_ packet: RTPPacket, layer: Int, now: UInt64, isRetransmission: Bool = false) {
        announcePublishing(now: now)
        // A packet that arrived already goes no further: a browser probes its bandwidth by
        // resending packets over RTX ("redundant payloads"), and networks duplicate. Forwarded,
        // players' SRTP replay checks would drop the copies, and transport-cc reads them as lost.
        guard !state.layers[layer].retransmissions.holds(sequence: packet.sequenceNumber) else { return }
        state.layers[layer].nacks.received(packet.sequenceNumber, now: now)
        let stored = state.layers[layer].retransmissions.store(UnsafeRawBufferPointer(packet.buffer),
                                                         sequence: packet.sequenceNumber, shared: transport.worker.shared)
        let payload = UnsafeRawBufferPointer(packet.payload)
        var (keyFrame, temporalLayer, vp8) = videoCodec.describe(payload)
        if let vp8, !state.encrypted, vp8.lacksStartCode(in: payload) { foundEncrypted() }
        var dependency: DependencyFrame?
        if readsDependencies {
            dependency = state.layers[layer].vp9 == nil ? readDependency(packet, layer: layer)
                : state.layers[layer].readVP9(payload, timestamp: packet.timestamp)
            if let frame = dependency {
                // The descriptor speaks for every codec: the frame that brings the structure
                // starts a key picture, and its other spatial layers' frames belong to it. For
                // an encrypted payload it alone does.
                if frame.attachesStructure { state.layers[layer].dependencyKeyTimestamp = packet.timestamp }
                keyFrame = (keyFrame && !state.encrypted) || state.layers[layer].dependencyKeyTimestamp == packet.timestamp
                temporalLayer = frame.temporalID
                if !isRetransmission {
                    state.layers[layer].targetMeters!.record(frame, size: packet.buffer.count)
                }
            }
        }
        if let tid = temporalLayer, Int(tid) + 1 > state.layers[layer].temporalLayers {
            state.layers[layer].temporalLayers = Int(tid) + 1
        }
        if keyFrame { state.layers[layer].keyFrameRequests.keyFrameArrived() }
        // VP8's size is read through the descriptor parsed above (from the clear bytes of an
        // encrypted frame, or none); other codecs parse their own, unless encrypted. The
        // descriptor's structure gives it when the payload did not.
        var size = keyFrame ? (vp8.map { $0.keyFrameSize(in: payload) } ?? (state.encrypted ? nil : videoCodec.keyFrameSize(payload))) : nil
        if size == nil, let frame = dependency, frame.attachesStructure { size = structureSize(layer: layer) }
        if let size,
           size.width != state.layers[layer].width || size.height != state.layers[layer].height {
            state.layers[layer].width = size.width
            state.layers[layer].height = size.height
            layerSizeChanged()
            router?.sizesChanged()
        }
        let clockRate = videoParameters!.clockRate
        if !isRetransmission {
            state.layers[layer].stats.record(sequence: packet.sequenceNumber, timestamp: packet.timestamp,
                                       size: packet.buffer.count, clockRate: clockRate, now: now, keyFrame: keyFrame)
        }
        state.layers[layer].frames.record(timestamp: packet.timestamp)
        state.layers[layer].lastPacketMicros = now
        // Padding-only packets (bandwidth probes) carry nothing for players, and are no
        // sign of media: a browser whose camera stopped may go on padding.
        guard packet.payloadLength > 0 else { return }
        state.lastMediaMicros = now
        guard let router else { return }
        // Key frames the players asked for meanwhile go out now, after the fan-out.
        var item = ForwardedPacket(packet: packet, kind: .video, layer: layer, isKeyFrame: keyFrame,
                                   temporalLayer: temporalLayer, vp8: vp8, clockRate: clockRate,
                                   audioLevel: nil, now: now, stored: stored)
        item.dependency = dependency
        let requests = router.forward(item)
        if !requests.isEmpty { requestKeyFrames(requests) }
    }

    /// The top spatial layer's size in the layer's dependency structure, when it tells sizes.
    @inline(never)
    private func structureSize(layer: Int) -> (width: Int, height: Int)? {
        guard let table = state.layers[layer].dependencies else { return nil }
        return table.resolution(spatialID: table.maxSpatialID)
    }

    /// A VP8 key frame's first packet without the start code: the payload is encrypted past
    /// fewer clear bytes than its frame header (a publisher that did not say `e2ee`). From now
    /// its key frames come from the dependency descriptor when it has one; without, the
    /// key-frame bit is all there is, and players may start on frames they cannot decode.
    @inline(never)
    private func foundEncrypted() {
        state.encrypted = true
        let advice = readsDependencies ? "its key frames are now taken from the dependency descriptor alone"
            : "it has no dependency descriptor, so its key frames cannot be told; an app that encrypts "
                + "must keep VP8's first 10 bytes of a key frame and 3 of a delta frame in the clear, or negotiate the descriptor"
        transport.worker.log?.warn("stream \(parameters.stream): publisher \(parameters.handle) sends VP8 key frames "
                                   + "without a start code: its payload is taken as end-to-end encrypted; " + advice,
                                   [.stream(parameters.stream), .handle("\(parameters.handle)")])
    }

    /// The packet's dependency descriptor, read against the layer's structure; nil when it has
    /// none, or one that does not parse (counted, and logged once: the packet goes on without).
    @inline(__always)
    private func readDependency(_ packet: RTPPacket, layer: Int) -> DependencyFrame? {
        guard let id = videoParameters?.extensions.dependencyDescriptor, let value = packet.extensionValue(id: id),
              let start = value.baseAddress, let base = packet.buffer.baseAddress else { return nil }
        if let frame = DependencyFrame.read(UnsafeRawBufferPointer(value), offset: start - base,
                                            table: &state.layers[layer].dependencies!) {
            return frame
        }
        state.layers[layer].malformedDependencies &+= 1
        if state.layers[layer].malformedDependencies == 1 {
            transport.worker.log?.warn("stream \(parameters.stream): publisher \(parameters.handle) sent a dependency "
                                       + "descriptor that does not parse, or names a template before any structure; "
                                       + "such packets are forwarded without one",
                                       [.stream(parameters.stream), .handle("\(parameters.handle)")])
        }
        return nil
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTCP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(bytes))
        while let (packet, _) = iterator.next() {
            if packet.packetType == RTCPPacketType.application, linkWatch != nil {
                linkMessage(packet.bytes, now: now)
                continue
            }
            guard packet.packetType == RTCPPacketType.senderReport,
                  let report = RTCPSenderReport(parsing: packet.bytes) else { continue }
            if state.audio?.ssrc == report.ssrc {
                state.audio!.stats.recordSenderReport(ntp: report.ntpTimestamp, now: now)
                router?.senderReport(kind: .audio, layer: 0, ntp: report.ntpTimestamp, rtpTimestamp: report.rtpTimestamp)
            } else if let i = state.layers.firstIndex(where: { $0.ssrc == report.ssrc }) {
                state.layers[i].stats.recordSenderReport(ntp: report.ntpTimestamp, now: now)
                state.layers[i].senderReportMicros = (report.ntpTimestamp >> 32) * 1_000_000
                    + ((report.ntpTimestamp & 0xffff_ffff) * 1_000_000) >> 32
                state.layers[i].senderReportRTP = report.rtpTimestamp
                router?.senderReport(kind: .video, layer: i, ntp: report.ntpTimestamp, rtpTimestamp: report.rtpTimestamp)
            }
        }
    }
}
