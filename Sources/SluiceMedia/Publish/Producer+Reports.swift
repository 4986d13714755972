import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// What a producer sends back to its publisher and reports upward: key-frame requests,
/// receiver reports, NACKs, the bitrate cap (REMB), cap and size events, quality and stats.
extension Producer {
    /// What players asked for, through the router.
    func requestKeyFrames(_ requests: KeyFrameRequests) {
        // A link's origin must forward a layer before its key frame is of use: the new
        // request goes out before the PLI (docs/cluster.md, "Layers on a link").
        if linkWatch != nil { sendWantedLayers(now: MonotonicClock.nowMicros()) }
        for i in state.layers.indices where requests.contains(layer: i) { requestKeyFrame(layer: i) }
    }

    /// PLI for one layer, gated per layer (KeyFrameRequestGate).
    func requestKeyFrame(layer: Int) {
        guard state.layers.indices.contains(layer), let ssrc = state.layers[layer].ssrc, transport.isConnected,
              state.layers[layer].keyFrameRequests.shouldRequest(now: MonotonicClock.nowMicros()) else { return }
        let pli = RTCPPictureLossIndication(senderSSRC: reporterSSRC, mediaSSRC: ssrc)
        sendRTCP { writer in pli.write(into: &writer) }
    }

    func setBitrateCap(_ kbps: Int?) {
        bitrateCapKbps = kbps
        nextReport = 0
    }

    func tick(now: UInt64) {
        if linkWatch != nil {
            checkLink(now: now)
            sendWantedLayers(now: now)
        }
        if transport.isConnected, videoParameters?.feedback.nack == true { sendNacks(now: now) }
        if transport.isConnected, let mediaSSRC = state.layers.first?.ssrc ?? state.audio?.ssrc,
           let twcc = state.feedback.feedback(now: now, senderSSRC: reporterSSRC, mediaSSRC: mediaSSRC) {
            sendRTCP { writer in twcc.write(into: &writer) }
        }
        reportAudioLevel(now: now)
        let due = now >= nextReport
        updateLayerPauses(now: now, due: due)
        guard due else { return }
        nextReport = now + 1_000_000
        if let total = state.audio?.stats.bytes { state.audio!.bitrate.sample(totalBytes: total, now: now) }
        for i in state.layers.indices {
            state.layers[i].bitrate.sample(totalBytes: state.layers[i].stats.bytes, now: now)
            state.layers[i].sampled(now: now)
            state.layers[i].frames.sample(now: now)
            if state.layers[i].targetMeters != nil { state.layers[i].targetMeters!.sample(now: now) }
        }
        if transport.isConnected {
            sendReceiverReport(now: now)
            sendBitrateCap()
        }
        if let requests = router?.layersMeasured(selectorLayers(now: now), now: now), !requests.isEmpty {
            requestKeyFrames(requests)
        }
        linkCounters?.publish(state.layers.map(\.stats.packets))
        checkCaps(now: now)
        checkRTPActivity(now: now)
        updateQuality()
        statsBoard?.publish(stats(now: now))
    }

    func sendReceiverReport(now: UInt64) {
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
        if let ssrc = state.audio?.ssrc { block(&state.audio!.stats, ssrc: ssrc) }
        for i in state.layers.indices {
            if let ssrc = state.layers[i].ssrc { block(&state.layers[i].stats, ssrc: ssrc) }
        }
        guard !blocks.isEmpty else { return }
        let rr = RTCPReceiverReport(ssrc: reporterSSRC, reportBlocks: blocks)
        sendRTCP { writer in rr.write(into: &writer) }
    }

    /// NACKs the publisher for what is missing upstream, per layer.
    func sendNacks(now: UInt64) {
        for i in state.layers.indices where state.layers[i].nacks.missingCount > 0 {
            guard let ssrc = state.layers[i].ssrc else { continue }
            let lost = state.layers[i].nacks.due(now: now)
            guard !lost.isEmpty else { continue }
            nacksSent += UInt64(lost.count)
            let nack = RTCPGenericNACK(senderSSRC: reporterSSRC, mediaSSRC: ssrc, lostSequenceNumbers: lost)
            sendRTCP { writer in nack.write(into: &writer) }
        }
    }

    /// REMB carries the publish's cap; a browser keeps its send rate (all layers) under it.
    func sendBitrateCap() {
        guard let cap = bitrateCapKbps else { return }
        let ssrcs = state.layers.compactMap(\.ssrc)
        guard !ssrcs.isEmpty else { return }
        let remb = RTCPREMB(senderSSRC: reporterSSRC, bitrate: UInt64(cap) * 1000, ssrcs: ssrcs)
        sendRTCP { writer in remb.write(into: &writer) }
    }

    func sendRTCP(_ build: (inout ByteWriter) -> Void) {
        rtcpScratch.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            build(&writer)
            guard !writer.overflowed else { return }
            transport.sendRTCP(UnsafeRawBufferPointer(rebasing: raw[0..<writer.offset]))
        }
    }

    /// What the server receives from the publisher, as a score: loss and jitter (no RTT: a
    /// sending-only browser reports none).
    func updateQuality() {
        guard announcedPublishing else { return }
        var jitter = state.audio.map { $0.stats.jitterMillis(clockRate: $0.parameters.clockRate) } ?? 0
        for layer in state.layers {
            jitter = max(jitter, layer.stats.jitterMillis(clockRate: videoParameters?.clockRate ?? 90_000))
        }
        let current = ConnectionQuality(lossFraction: intervalLoss, jitterMs: jitter, rttMs: 0)
        if current.level != quality?.level {
            report(.connectionQuality(parameters.handle, score: current.score, level: current.level))
        }
        quality = current
    }

    /// The stream's layers as the stats show them, to the publisher and to every player.
    func layerStats(now: UInt64) -> [LayerStats] {
        state.layers.enumerated().map { i, layer in
            var entry = LayerStats(index: i, rid: layer.rid?.description, width: layer.width, height: layer.height,
                                   fps: layer.frames.fps, bitrateKbps: layer.bitrate.kbps, active: layer.isActive(now: now))
            // A relay link's layer it does not carry now: as the origin measures it.
            if let origin = originLayer(i, now: now) {
                entry = LayerStats(index: i, rid: layer.rid?.description, width: Int(origin.width), height: Int(origin.height),
                                   fps: Double(origin.fpsCenti) / 100, bitrateKbps: Double(origin.bitrateKbps),
                                   active: origin.active)
            }
            entry.temporalLayers = layer.temporalLayers
            return entry
        }
    }

    func stats(now: UInt64) -> HandleStats {
        var audioStats: KindStats?
        if let audio = state.audio {
            var s = KindStats()
            s.packets = audio.stats.packets
            s.bytes = audio.stats.bytes
            s.bitrateKbps = audio.bitrate.kbps
            s.packetsLost = audio.stats.cumulativeLost
            s.jitterMs = audio.stats.jitterMillis(clockRate: audio.parameters.clockRate)
            s.codec = audio.parameters.codecName
            if audio.parameters.extensions.audioLevel != nil { s.level = (audio.level.reading(now: now) * 10).rounded() / 10 }
            if audio.parameters.redPayloadType != nil { s.redPackets = audio.redPackets }
            audioStats = s
        }
        var videoStats: KindStats?
        if let video = videoParameters {
            var s = KindStats()
            s.codec = video.codecName
            for layer in state.layers {
                s.packets += layer.stats.packets
                s.bytes += layer.stats.bytes
                s.bitrateKbps += layer.bitrate.kbps
                s.packetsLost += layer.stats.cumulativeLost
                s.keyFrames += layer.stats.keyFrames
                s.jitterMs = max(s.jitterMs, layer.stats.jitterMillis(clockRate: video.clockRate))
            }
            s.layers = layerStats(now: now)
            s.spatialLayers = LayerStats.spatial(spatialLayers(now: now),
                                                 temporalLayers: state.layers.first?.temporalLayers ?? 1)
            s.nacks = nacksSent
            if state.encrypted { s.e2ee = true }
            // A publisher's size, fps and `layer` are those of its top layer.
            let layers = state.layers
            if let top = layers.indices.max(by: { layers[$0].width * layers[$0].height < layers[$1].width * layers[$1].height }) {
                s.width = state.layers[top].width
                s.height = state.layers[top].height
                s.fps = state.layers[top].frames.fps
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

    /// `limitExceeded` to the publisher for a cap its top layer stayed over, and the stop
    /// when the app asks for it (the control plane ends the handle on `.failed`).
    func checkCaps(now: UInt64) {
        guard capWatch.caps.maxWidth != nil || capWatch.caps.maxHeight != nil || capWatch.caps.maxFps != nil,
              let top = state.layers.max(by: { $0.width * $0.height < $1.width * $1.height }) else { return }
        for exceeded in capWatch.observe(width: top.width, height: top.height, fps: top.frames.fps, now: now) {
            report(.limitExceeded(parameters.handle, limit: exceeded.limit, value: exceeded.value, max: exceeded.max))
            if capWatch.caps.stopWhenExceeded {
                report(.failed(parameters.handle, .limitExceeded(exceeded.limit)))
                return
            }
        }
    }

    /// A publisher whose media stopped while its transport stays up fails (the control plane
    /// ends the handle on `.failed`). Whether the transport is connected does not matter:
    /// one that drops fails by itself, and the control plane ends a handle only once.
    func checkRTPActivity(now: UInt64) {
        if rtpActivity.hasExpired(lastMediaMicros: state.lastMediaMicros, now: now) {
            report(.failed(parameters.handle, .rtpActivity))
        }
    }

    /// The top layer's size is the stream's size: report a change as `resize`.
    func layerSizeChanged() {
        guard let top = state.layers.max(by: { $0.width * $0.height < $1.width * $1.height }),
              top.width > 0, top.width != topSize.width || top.height != topSize.height else { return }
        topSize = (top.width, top.height)
        report(.resize(stream: parameters.stream, width: top.width, height: top.height))
    }
}

extension Producer {
    /// How often a publisher's audio level is looked at for the active speaker: half a level
    /// window, so a window's reading reaches the control plane within 50 ms of closing.
    static let levelReportMicros: UInt64 = 50_000
    /// A stream this loud (dBov) is reported every window even when steady: the speaker
    /// followers' hold time runs on the control thread's clock, which these reports wake.
    static let levelNearSpeech: Double = -60

    /// Reports the audio level when it moved by 0.5 dB or more, every 100 ms while near
    /// speech, and at least once a second (a silent stream's stays fresh). Only a publisher's
    /// own: an edge's relay-link source is the origin's stream, whose node reports it.
    func reportAudioLevel(now: UInt64) {
        // The due time first, read in place: this runs at every tick (10 ms), and `linkWatch`,
        // a stored var of the class, costs a dynamic exclusivity check to read (perf).
        guard let due = state.audio?.nextLevelReport, now >= due else { return }
        state.audio!.nextLevelReport = now + Self.levelReportMicros
        guard state.audio!.parameters.extensions.audioLevel != nil, linkWatch == nil else { return }
        let level = (state.audio!.level.reading(now: now) * 10).rounded() / 10
        let voice = (state.audio!.level.voice(now: now) * 10).rounded() / 10
        let audio = (reported: state.audio!.reportedLevel, voice: state.audio!.reportedVoice, at: state.audio!.levelReported)
        let since = now &- audio.at
        let moved = !(abs(level - audio.reported) < 0.5) || !(abs(voice - audio.voice) < 0.5)
        guard moved || since >= 1_000_000 || (level >= Self.levelNearSpeech && since >= 100_000) else { return }
        state.audio!.reportedLevel = level
        state.audio!.reportedVoice = voice
        state.audio!.levelReported = now
        report(.audioLevel(parameters.handle, stream: parameters.stream, level: level, voice: voice))
    }
}
