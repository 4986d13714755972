import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// The player side of one stream: decides per packet whether to forward, rewrites SSRC,
/// payload type, sequence number, timestamp and header extensions to what this player
/// negotiated, writes the packet once into an outgoing buffer and hands it to the transport.
final class Consumer: WebRTCTransportDelegate, WorkerTickable {
    let parameters: EndpointParameters
    private(set) var constraints: StreamConstraints
    let transport: WebRTCTransport
    weak var router: Router?
    var report: (WorkerEvent) -> Void = { _ in }

    private var audio: Track?
    private var video: Track?
    private var announcedPlaying = false
    private var hasSource = false
    private var transportSequence: UInt16 = 1
    /// The transport-wide sequence number the header being written took, or -1.
    private var pendingTransportSequence: Int32 = -1
    /// What was sent when, for the player's transport-cc feedback.
    private var history: SendHistory
    private var nextReport: UInt64 = 0
    private var rtcpScratch = [UInt8](repeating: 0, count: 1500)
    private let statsBoard: StatsBoard?
    private var rttMillis: Double = 0
    private var remoteFractionLost: Double = 0
    private var remoteJitterMs: Double = 0
    private var remoteLost: Int64 = 0
    private var plisReceived: UInt64 = 0
    private var haveReceiverReport = false
    private var quality: ConnectionQuality?
    // Simulcast: the layer being forwarded, the one wanted, and why.
    private(set) var currentLayer: Int?
    private(set) var targetLayer = Int.max
    private var targetReason = LayerSelector.Reason.constraints
    private var notEnoughBandwidthReported = false
    /// Estimated bandwidth towards the player (kbit/s): from its transport-cc feedback, or
    /// from its REMB raised by clean probes; capped by loss.
    private var estimate = BandwidthEstimate()
    var bandwidthKbps: Double? { estimate.kbps }
    private var vp8 = VP8Munger()
    /// Highest VP8 temporal layer forwarded, from the `fps` constraint (255: all).
    private(set) var maxTemporalLayer: UInt8 = 255
    /// Outgoing video sequence number -> the source packet it carried (for NACKs).
    private var sent = SentPacketMap()
    // Bandwidth probing: padding that lets the player's estimate rise above what it receives.
    private var probeKbps: Double = 0
    private var probeTotalKbps: Double = 0
    private var probeUntil: UInt64 = 0
    private var probeClean = true
    private var rembAtProbeStart: Double = 0
    private var probeStart: UInt64 = 0
    private var lastProbeEnd: UInt64 = 0
    private var paddingSent: UInt64 = 0
    /// A REMB takes a while to show what a probe did; transport-cc feedback shows queueing
    /// within a feedback interval, so those probes are short.
    static let probeMicros: UInt64 = 2_000_000
    static let feedbackProbeMicros: UInt64 = 600_000
    static let probeSpacingMicros: UInt64 = 1_000_000
    private var firsReceived: UInt64 = 0
    private var nacksReceived: UInt64 = 0

    struct Track {
        let parameters: TrackParameters
        let mid: [UInt8]
        var enabled: Bool
        var munger: SequenceMunger
        /// Set when the source changed: wait for a restart point (a key frame for video).
        var needsRestart = true
        var packets: UInt64 = 0
        var bytes: UInt64 = 0
        var bitrate = BitrateMeter()
        var lastRTPTimestamp: UInt32 = 0
        var lastSendMicros: UInt64 = 0
        var keyFrames: UInt64 = 0
        /// Frames sent per second (video), from the output timestamps.
        var frames = FrameRateMeter()
        /// The last packet sent ended a frame: a safe point to insert padding.
        var atFrameBoundary = false
        /// The source layer and RTP timestamp of the newest packet sent (for switches).
        var lastSourceLayer = -1
        var lastSourceTimestamp: UInt32 = 0
        /// Video whose player negotiated RTX: NACKs are answered on this stream.
        var rtx: RTXStream?

        /// Decided once: the packet path must not compare codec names.
        let isVP8: Bool

        init(parameters: TrackParameters, enabled: Bool) {
            self.parameters = parameters
            isVP8 = parameters.kind == .video && CodecKind(parameters.codecName) == .vp8
            mid = Array(parameters.mid.utf8)
            rtx = RTXStream(track: parameters)
            self.enabled = enabled
            munger = SequenceMunger(initialSequence: UInt16.random(in: 1..<0x4000),
                                    initialTimestamp: UInt32.random(in: 0..<0x4000_0000))
        }
    }

    init(parameters: EndpointParameters, constraints: StreamConstraints, transport: WebRTCTransport,
         statsBoard: StatsBoard?) {
        self.parameters = parameters
        self.constraints = constraints
        self.transport = transport
        self.statsBoard = statsBoard
        if let a = parameters.audio { audio = Track(parameters: a, enabled: constraints.audio) }
        if let v = parameters.video { video = Track(parameters: v, enabled: constraints.video != nil) }
        history = SendHistory(enabled: parameters.audio?.extensions.transportCC != nil
                                  || parameters.video?.extensions.transportCC != nil)
    }

    /// A publisher arrived or left. The next packet of each kind restarts the output
    /// sequence right after the last one sent, so the player sees no gap.
    func sourceChanged(_ producer: Producer?) {
        hasSource = producer != nil
        audio?.needsRestart = true
        video?.needsRestart = true
        currentLayer = nil
        targetLayer = Int.max
        announcedPlaying = false
        if producer != nil {
            selectLayer(now: MonotonicClock.nowMicros())
            if transport.isConnected { router?.requestKeyFrame() }
        }
    }

    /// Picks the layer this player should get (LayerSelector); a change asks that layer for a
    /// key frame, and the switch happens when it arrives.
    func selectLayer(now: UInt64) {
        guard let producer = router?.producer, video != nil else { return }
        let layers = producer.selectorLayers(now: now)
        let wanted = constraints.video ?? VideoConstraints()
        let choice: LayerSelector.Choice
        if let chosen = LayerSelector.choose(layers: layers, constraints: wanted, bandwidthKbps: limitingBandwidth(now: now),
                                             current: currentLayer) {
            choice = chosen
        } else if targetLayer == Int.max {
            // Nothing measured yet: start from what the constraints say with no sizes known.
            let unknown = layers.map { LayerSelector.Layer(index: $0.index, width: 0, height: 0) }
            guard let chosen = LayerSelector.choose(layers: unknown, constraints: wanted, bandwidthKbps: nil) else { return }
            choice = chosen
        } else {
            return
        }
        considerProbe(choice: choice, layers: layers, constraints: wanted, now: now)
        maxTemporalLayer = Self.temporalLayerLimit(fpsCap: wanted.fps, timing: producer.layerTiming(choice.layer))
        if choice.layer != targetLayer {
            targetLayer = choice.layer
            targetReason = choice.reason
            if currentLayer != nil { producer.requestKeyFrame(layer: choice.layer) }
        }
        if choice.notEnoughBandwidth != notEnoughBandwidthReported {
            notEnoughBandwidthReported = choice.notEnoughBandwidth
            if choice.notEnoughBandwidth {
                report(.notEnoughBandwidth(parameters.handle, kbps: Int(bandwidthKbps ?? 0)))
            }
        }
    }

    func update(_ constraints: StreamConstraints) {
        self.constraints = constraints
        selectLayer(now: MonotonicClock.nowMicros())
        audio?.enabled = constraints.audio && !audioMutedByPlayer
        let videoEnabled = constraints.video != nil && !videoMutedByPlayer
        if video?.enabled == false && videoEnabled { video?.needsRestart = true }
        video?.enabled = videoEnabled
    }

    private var audioMutedByPlayer = false
    private var videoMutedByPlayer = false

    /// The player's own mute of what it receives. Resuming video waits for a key frame and
    /// continues the sequence right after the last packet sent, so there is no gap.
    func setMuted(_ kind: MediaKind, _ muted: Bool) {
        if kind == .audio { audioMutedByPlayer = muted } else { videoMutedByPlayer = muted }
        update(constraints)
        if kind == .video && !muted {
            video?.needsRestart = true
            router?.requestKeyFrame()
        }
    }

    /// The stream-wide mute of `kind` changed; video resumes on a key frame.
    func streamMuteChanged(_ kind: MediaKind) {
        if kind == .video { video?.needsRestart = true } else { audio?.needsRestart = true }
    }

    // MARK: Forwarding (hot path)

    @inline(__always)
    func forward(_ item: borrowing ForwardedPacket) {
        guard transport.isConnected else { return }
        if item.kind == .audio {
            guard audio != nil, audio!.enabled else { return }
            send(item, track: &audio!)
        } else {
            guard video != nil, video!.enabled else { return }
            let layer = item.layer
            if layer != currentLayer || video!.needsRestart {
                // Only a key frame of the wanted layer starts (or switches) the video.
                guard layer == targetLayer || (targetLayer == Int.max && currentLayer == nil) else { return }
                guard item.isKeyFrame else {
                    router?.requestKeyFrame(layer: layer)
                    return
                }
                switchLayer(to: layer, item)
            }
            if let tid = item.temporalLayer, tid > maxTemporalLayer, !item.isKeyFrame {
                // A frame rate cap: this temporal layer is not for this player.
                video!.munger.skip(sequence: item.packet.sequenceNumber)
                vp8.skip(UnsafeRawBufferPointer(item.packet.payload))
                return
            }
            send(item, track: &video!)
        }
    }

    /// The highest temporal layer that keeps the frame rate within `fpsCap`: with T layers
    /// (each doubling the rate), layer k carries fps / 2^(T-1-k). 255 means all.
    static func temporalLayerLimit(fpsCap: Int?, timing: (fps: Double, temporalLayers: Int)) -> UInt8 {
        guard let cap = fpsCap, timing.temporalLayers > 1, timing.fps > 0 else { return 255 }
        let top = timing.temporalLayers - 1
        for k in stride(from: top, through: 0, by: -1) {
            let rate = timing.fps / Double(1 << (top - k))
            if rate <= Double(cap) * 1.1 { return UInt8(k) }
        }
        return 0
    }

    /// The estimate the selector should respect. With `quality: auto` that is always the
    /// estimate. A named quality is held below what it asked for only while the path shows
    /// congestion (loss, queueing, a falling REMB): a REMB that is merely low says nothing
    /// about a higher layer, since a receiver's estimate never rises far above what it gets.
    private func limitingBandwidth(now: UInt64) -> Double? {
        guard let value = bandwidthKbps else { return nil }
        if (constraints.video?.quality ?? .auto) == .auto { return value }
        if estimate.congested(now: now) { return value }
        // Held low by congestion before: stay with the estimate until probes raise it, or a
        // steady cap would bounce the player between layers.
        return targetReason == .bandwidth ? value : nil
    }

    /// When bandwidth holds the player below the layer it asked for, and it reports no loss,
    /// pad up to a higher layer's rate for a moment. A receiver-side estimator (REMB) never
    /// rises far above what it receives, so without this a player would never climb back.
    private func considerProbe(choice: LayerSelector.Choice, layers: [LayerSelector.Layer],
                               constraints: VideoConstraints, now: UInt64) {
        if probeUntil > now {
            if remoteFractionLost > 0.02 {
                probeClean = false
                stopProbe(now: now)
            }
            return
        }
        guard choice.reason == .bandwidth, let current = currentLayer, remoteFractionLost <= 0.02,
              now - lastProbeEnd >= Self.probeSpacingMicros,
              let ideal = LayerSelector.choose(layers: layers, constraints: constraints, bandwidthKbps: nil),
              ideal.layer != current else { return }
        let ranked = layers.filter(\.active).sorted(by: LayerSelector.ranksBelow)
        guard let position = ranked.firstIndex(where: { $0.index == current }), position + 1 < ranked.count else { return }
        // With transport-cc the probe's own arrivals show whether the path holds it, so probe
        // straight for the layer asked for; a REMB is only trusted one layer at a time.
        let feedback = estimate.usesTransportFeedback
        let up = feedback ? (ranked.first { $0.index == ideal.layer } ?? ranked[position + 1]) : ranked[position + 1]
        probeTotalKbps = up.bitrateKbps * (feedback ? 1.3 : 1.4)
        probeKbps = max(50, probeTotalKbps - ranked[position].bitrateKbps)
        probeStart = now
        probeUntil = now + (feedback ? Self.feedbackProbeMicros : Self.probeMicros)
        probeClean = true
        rembAtProbeStart = estimate.remb ?? 0
    }

    private func stopProbe(now: UInt64) {
        let clean = probeClean && (estimate.usesTransportFeedback
            ? !estimate.sendSide.congested(since: probeStart) && estimate.sendSide.lossFraction <= 0.02
            : (estimate.remb ?? 0) >= rembAtProbeStart * 0.9)
        estimate.probeEnded(totalKbps: probeTotalKbps, clean: clean, now: now)
        probeUntil = 0
        lastProbeEnd = now
        if clean { selectLayer(now: now) }
    }

    /// Padding-only RTP packets on the video stream (RFC 3550 P bit), between frames, with the
    /// extensions the player's estimator reads. Each takes a sequence number of its own.
    private func sendPadding(budget: Int, now: UInt64) {
        guard video != nil, video!.enabled, video!.atFrameBoundary, !video!.needsRestart, transport.isConnected else { return }
        let pool = transport.worker.pool
        var remaining = budget
        while remaining > 0 {
            guard let buffer = pool.take() else { return }
            guard let (sequence, timestamp) = video!.munger.insert() else {
                pool.give(buffer)
                return
            }
            let raw = UnsafeMutableRawBufferPointer(start: pool.pointer(buffer), count: PacketBufferPool.bufferSize)
            var writer = ByteWriter(raw)
            _ = writeHeader(&writer, track: video!, marker: false, sequence: sequence, timestamp: timestamp,
                            audioLevel: nil, now: now)
            writer.write(zeros: 254)
            writer.write(UInt8(255))
            guard !writer.overflowed else {
                pool.give(buffer)
                return
            }
            raw[0] |= 0x20
            paddingSent += UInt64(writer.offset)
            remaining -= writer.offset
            emit(buffer: buffer, length: writer.offset, now: now)
        }
    }

    /// Answers a NACK: rebuilds the packet sent as `outSequence` from the producer's stored
    /// copy, with the same timestamp and VP8 fields. With RTX negotiated it goes out on the RTX
    /// stream (RFC 4588: RTX SSRC, payload type and sequence, `outSequence` ahead of the
    /// payload); without, as it was first sent, same SSRC and sequence (SRTP allows the repeat).
    private func retransmit(_ outSequence: UInt16, now: UInt64) {
        guard let video, let entry = sent.lookup(outSequence), let producer = router?.producer,
              let stored = producer.storedPacket(layer: Int(entry.layer), sequence: entry.sourceSequence),
              let source = RTPPacket(parsing: stored) else { return }
        let pool = transport.worker.pool
        guard let buffer = pool.take() else { return }
        let raw = UnsafeMutableRawBufferPointer(start: pool.pointer(buffer), count: PacketBufferPool.bufferSize)
        var writer = ByteWriter(raw)
        let payloadOffset: Int
        if video.rtx != nil {
            let extensions = headerExtensions(track: video, audioLevel: nil, now: now)
            payloadOffset = self.video!.rtx!.writeHeader(into: &writer, marker: source.marker, timestamp: entry.outTimestamp,
                                                         originalSequence: outSequence, extensions: extensions) ?? 0
        } else {
            payloadOffset = writeHeader(&writer, track: video, marker: source.marker, sequence: outSequence,
                                        timestamp: entry.outTimestamp, audioLevel: nil, now: now)
        }
        writer.write(bytes: UnsafeRawBufferPointer(source.payload))
        guard !writer.overflowed else {
            pool.give(buffer)
            return
        }
        if entry.pictureID >= 0 || entry.tl0PicIdx >= 0 {
            VP8Munger.write(pictureID: entry.pictureID, tl0PicIdx: entry.tl0PicIdx,
                            into: UnsafeMutableRawBufferPointer(rebasing: raw[payloadOffset..<writer.offset]))
        }
        emit(buffer: buffer, length: writer.offset, now: now)
    }

    private func switchLayer(to layer: Int, _ item: borrowing ForwardedPacket) {
        let previous = currentLayer
        currentLayer = layer
        video!.needsRestart = true
        vp8.restart()
        guard let producer = router?.producer, producer.isSimulcast, previous != layer else { return }
        let size = producer.layerSize(layer)
        report(.layerChanged(parameters.handle, layer: layer, width: size.width, height: size.height,
                             reason: previous == nil ? .constraints : targetReason))
    }

    @inline(__always)
    private func send(_ item: borrowing ForwardedPacket, track: inout Track) {
        let packet = item.packet
        if track.needsRestart {
            if item.kind == .video && !item.isKeyFrame {
                router?.requestKeyFrame()
                return
            }
            var step: Int64?
            if item.kind == .video, track.lastSourceLayer >= 0, let producer = router?.producer,
               let from = producer.captureMicros(layer: track.lastSourceLayer, timestamp: track.lastSourceTimestamp),
               let to = producer.captureMicros(layer: item.layer, timestamp: packet.timestamp),
               to > from, to - from < 5_000_000 {
                step = (to - from) * Int64(item.clockRate) / 1_000_000
            }
            track.munger.restart(atSequence: packet.sequenceNumber, timestamp: packet.timestamp,
                                 clockRate: item.clockRate, now: item.now, timestampStep: step)
            track.needsRestart = false
        }
        guard case .forward(let sequence, let timestamp) = track.munger.map(
            sequence: packet.sequenceNumber, timestamp: packet.timestamp, now: item.now) else { return }
        let rewriteVP8 = track.isVP8

        let pool = transport.worker.pool
        guard let buffer = pool.take() else { return }
        let raw = UnsafeMutableRawBufferPointer(start: pool.pointer(buffer), count: PacketBufferPool.bufferSize)
        var writer = ByteWriter(raw)
        let payloadOffset = writeHeader(&writer, track: track, marker: packet.marker, sequence: sequence,
                                        timestamp: timestamp, audioLevel: item.audioLevel, now: item.now)
        writer.write(bytes: UnsafeRawBufferPointer(packet.payload))
        guard !writer.overflowed else {
            pool.give(buffer)
            return
        }
        var descriptor: (pictureID: Int32, tl0PicIdx: Int16) = (-1, -1)
        if rewriteVP8 {
            // Picture ids and TL0PICIDX differ per layer and per publisher: continue them.
            descriptor = vp8.rewrite(UnsafeMutableRawBufferPointer(rebasing: raw[payloadOffset..<writer.offset]))
        }
        if item.kind == .video {
            track.frames.record(timestamp: timestamp)
            sent.record(.init(outSequence: sequence, layer: UInt8(truncatingIfNeeded: item.layer),
                              sourceSequence: packet.sequenceNumber, outTimestamp: timestamp,
                              pictureID: descriptor.pictureID, tl0PicIdx: descriptor.tl0PicIdx, valid: true))
        }
        track.packets += 1
        track.bytes += UInt64(writer.offset)
        track.lastRTPTimestamp = timestamp
        track.lastSendMicros = item.now
        track.atFrameBoundary = packet.marker
        track.lastSourceLayer = item.layer
        track.lastSourceTimestamp = packet.timestamp
        if item.isKeyFrame { track.keyFrames += 1 }
        emit(buffer: buffer, length: writer.offset, now: item.now)
        if !announcedPlaying {
            announcedPlaying = true
            report(.playing(parameters.handle))
        }
    }

    /// This player's RTP header for `track`: its SSRC, payload type and the header extensions
    /// it negotiated. Returns where the payload goes.
    @inline(__always)
    private func writeHeader(_ writer: inout ByteWriter, track: borrowing Track, marker: Bool, sequence: UInt16,
                             timestamp: UInt32, audioLevel: UInt8?, now: UInt64) -> Int {
        let extensions = headerExtensions(track: track, audioLevel: audioLevel, now: now)
        let header = RTPHeader(marker: marker, payloadType: track.parameters.payloadType, sequenceNumber: sequence,
                               timestamp: timestamp, ssrc: track.parameters.localSSRC)
        return header.write(into: &writer, extensions: extensions) ?? 0
    }

    /// The header extensions of one packet on `track` (RTX included): mid, abs-send-time, a
    /// transport-wide sequence number, audio level, as negotiated.
    @inline(__always)
    private func headerExtensions(track: borrowing Track, audioLevel: UInt8?, now: UInt64) -> RTPHeaderExtensionList {
        var extensions = RTPHeaderExtensionList()
        let ids = track.parameters.extensions
        // Each header says for itself whether it took a number (a packet dropped after its
        // header was written must not leave its number to the next one).
        pendingTransportSequence = -1
        if let id = ids.mid { _ = track.mid.withUnsafeBytes { extensions.append(id: id, value: $0) } }
        if let id = ids.absSendTime { _ = extensions.append(id: id, uint24: AbsSendTime.value(micros: now)) }
        if let id = ids.transportCC {
            _ = extensions.append(id: id, uint16: transportSequence)
            pendingTransportSequence = Int32(transportSequence)
            transportSequence &+= 1
        }
        if let id = ids.audioLevel, let level = audioLevel { _ = extensions.append(id: id, uint8: level) }
        return extensions
    }

    /// What goes to the player now (kbit/s), both kinds (padding not counted), for the estimators.
    private var sentKbps: Double { (video?.bitrate.kbps ?? 0) + (audio?.bitrate.kbps ?? 0) }

    /// Every RTP packet to the player leaves here, so the send history sees them all.
    @inline(__always)
    private func emit(buffer: Int32, length: Int, now: UInt64) {
        if pendingTransportSequence >= 0 {
            history.record(sequence: UInt16(truncatingIfNeeded: pendingTransportSequence), size: length, now: now)
            pendingTransportSequence = -1
        }
        transport.sendRTP(buffer: buffer, length: length)
    }

    // MARK: Transport delegate

    func transportDidConnect(_ transport: WebRTCTransport) {
        if hasSource { router?.requestKeyFrame() }
    }

    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) {
        report(.failed(parameters.handle, FailureReason(failure)))
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        // A player sends no media; ignore it.
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTCP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(bytes))
        while let (packet, _) = iterator.next() {
            switch packet.packetType {
            case RTCPPacketType.payloadFeedback where packet.count == 1:
                plisReceived += 1
                router?.requestKeyFrame()
            case RTCPPacketType.payloadFeedback where packet.count == 4:
                firsReceived += 1
                router?.requestKeyFrame()
            case RTCPPacketType.payloadFeedback where packet.count == 15:
                if let remb = RTCPREMB(parsing: packet.bytes) {
                    let previous = bandwidthKbps
                    estimate.received(remb: Double(remb.bitrate) / 1000, now: now)
                    // A falling estimate is acted on at once; a rising one at the next tick.
                    if let previous, let current = bandwidthKbps, current < previous * 0.85 { selectLayer(now: now) }
                }
            case RTCPPacketType.transportFeedback where packet.count == RTCPTransportWideCC.format:
                guard let feedback = RTCPTransportWideCC(parsing: packet.bytes) else { continue }
                let previous = bandwidthKbps
                estimate.received(feedback, history: history, sentKbps: sentKbps, now: now)
                if probeUntil > 0, estimate.sendSide.congested(since: probeStart) { probeClean = false }
                if let current = bandwidthKbps, current < (previous ?? .infinity) * 0.85 { selectLayer(now: now) }
            case RTCPPacketType.transportFeedback where packet.count == 1:
                nacksReceived += 1
                if let nack = RTCPGenericNACK(parsing: packet.bytes),
                   nack.mediaSSRC == video?.parameters.localSSRC {
                    for pair in nack.pairs {
                        pair.forEachLost { retransmit($0, now: now) }
                    }
                }
            case RTCPPacketType.receiverReport:
                guard let rr = RTCPReceiverReport(parsing: packet.bytes) else { continue }
                for block in rr.reportBlocks where block.ssrc == video?.parameters.localSSRC || block.ssrc == audio?.parameters.localSSRC {
                    haveReceiverReport = true
                    remoteFractionLost = Double(block.fractionLost) / 256
                    if block.ssrc == video?.parameters.localSSRC {
                        if remoteFractionLost > 0.02, probeUntil > 0 { probeClean = false }
                        let previous = bandwidthKbps
                        estimate.received(lossFraction: remoteFractionLost, sentKbps: video?.bitrate.kbps ?? 0)
                        if let previous, let current = bandwidthKbps, current < previous * 0.85 { selectLayer(now: now) }
                    }
                    remoteLost = Int64(block.cumulativeLost)
                    let clock = block.ssrc == video?.parameters.localSSRC ? 90_000.0 : 48_000.0
                    remoteJitterMs = Double(block.jitter) * 1000 / clock
                    if block.lastSenderReport != 0 {
                        let nowNTP = UInt32(truncatingIfNeeded: MonotonicClock.ntpNow() >> 16)
                        let rtt = nowNTP &- block.lastSenderReport &- block.delaySinceLastSenderReport
                        if rtt < 65536 * 10 { rttMillis = Double(rtt) * 1000 / 65536 }
                    }
                }
            default:
                continue
            }
        }
    }

    // MARK: Reports

    func tick(now: UInt64) {
        if probeUntil > 0 {
            if now < probeUntil {
                sendPadding(budget: Int(probeKbps * 1000 / 8 * Double(MediaWorker.tickMicros) / 1_000_000), now: now)
            } else {
                stopProbe(now: now)
            }
        }
        guard now >= nextReport else { return }
        nextReport = now + 1_000_000
        if let total = audio?.bytes { audio!.bitrate.sample(totalBytes: total, now: now) }
        if let total = video?.bytes {
            video!.bitrate.sample(totalBytes: total, now: now)
            video!.frames.sample(now: now)
        }
        if transport.isConnected { sendSenderReports(now: now) }
        if haveReceiverReport {
            let current = ConnectionQuality(lossFraction: remoteFractionLost, jitterMs: remoteJitterMs, rttMs: rttMillis)
            if current.level != quality?.level {
                report(.connectionQuality(parameters.handle, score: current.score, level: current.level))
            }
            quality = current
        }
        statsBoard?.publish(stats())
    }

    /// One SR per sending SSRC, mapping wall-clock time to the RTP clock of the last packet
    /// sent, extrapolated to now, so the player can sync audio and video.
    private func sendSenderReports(now: UInt64) {
        let ntp = MonotonicClock.ntpNow()
        for track in [audio, video] {
            guard let track, track.packets > 0 else { continue }
            let elapsed = now > track.lastSendMicros ? now - track.lastSendMicros : 0
            let rtp = track.lastRTPTimestamp &+ UInt32(truncatingIfNeeded: elapsed * UInt64(track.parameters.clockRate) / 1_000_000)
            let sr = RTCPSenderReport(ssrc: track.parameters.localSSRC, ntpTimestamp: ntp, rtpTimestamp: rtp,
                                      packetCount: UInt32(truncatingIfNeeded: track.packets),
                                      octetCount: UInt32(truncatingIfNeeded: track.bytes), reportBlocks: [])
            rtcpScratch.withUnsafeMutableBytes { raw in
                var writer = ByteWriter(raw)
                sr.write(into: &writer)
                guard !writer.overflowed else { return }
                transport.sendRTCP(UnsafeRawBufferPointer(rebasing: raw[0..<writer.offset]))
            }
        }
    }

    func stats() -> HandleStats {
        func kindStats(_ track: Track?) -> KindStats? {
            guard let track else { return nil }
            var s = KindStats()
            s.packets = track.packets
            s.bytes = track.bytes
            s.bitrateKbps = track.bitrate.kbps
            s.codec = track.parameters.codecName
            s.rttMs = rttMillis
            s.fractionLost = remoteFractionLost
            s.packetsLost = remoteLost
            s.jitterMs = remoteJitterMs
            s.keyFrames = track.keyFrames
            if track.parameters.kind == .video {
                s.plis = plisReceived
                s.firs = firsReceived
                s.nacks = nacksReceived
                s.layer = currentLayer
                s.availableBandwidthKbps = bandwidthKbps
                s.fps = track.frames.fps
                if let producer = router?.producer {
                    s.layers = producer.layerStats(now: MonotonicClock.nowMicros())
                    if let layer = currentLayer {
                        let size = producer.layerSize(layer)
                        s.width = size.width
                        s.height = size.height
                    }
                }
            }
            return s
        }
        var stats = HandleStats(handle: parameters.handle, stream: parameters.stream, role: .play,
                                audio: kindStats(audio), video: kindStats(video))
        stats.connectionQuality = quality
        stats.transportProtocol = transport.selectedPath.map { $0.isTCP ? "tcp" : "udp" }
        stats.tcpSendDroppedPackets = transport.tcpSendDroppedPackets
        return stats
    }
}
