import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// One pre-call test (docs/protocol.md section 6, "Pre-call test"): a PeerConnection bound to
/// no stream. It measures what the client sends (`UplinkMeter`, with transport-cc feedback so
/// the client's estimator climbs), pads back at rising rates on its own video SSRC
/// (`DownlinkRamp`, judged from the client's transport-cc feedback), and reads the RTT from the
/// client's reports of our sender reports. It reports its figures once a second and at the end,
/// then sends nothing more; the control plane removes it.
final class PrecallProbe: WebRTCTransportDelegate, WorkerTickable {
    let parameters: EndpointParameters
    let transport: WebRTCTransport
    var report: (WorkerEvent) -> Void = { _ in }

    private let settings: PrecallSettings
    private let created: UInt64
    private var started: UInt64 = 0
    private var finished = false
    private var uplink = UplinkMeter()
    private var downlink: DownlinkRamp
    private var feedback = TransportFeedbackGenerator()
    private var history = SendHistory()
    private let transportCCID: UInt8?
    private let reporterSSRC: UInt32 = .random(in: 1...UInt32.max)
    // The probe's own stream: the answer's SSRC on the video m-line, when the client receives.
    private let probe: TrackParameters?
    private let probeMid: [UInt8]
    private var probeSequence = UInt16.random(in: 0...0x7fff)
    private var transportSequence: UInt16 = 1
    private var probePackets: UInt32 = 0
    private var probeBytes: UInt32 = 0
    private var rttSamples: [Double] = []
    private var remoteJitterMs: Double?
    private var nextSenderReport: UInt64 = 0
    private var nextProgress: UInt64 = 0
    private var rtcpScratch = [UInt8](repeating: 0, count: 1500)

    static let senderReportMicros: UInt64 = 500_000
    static let progressMicros: UInt64 = 1_000_000
    static let maxRTTSamples = 64

    init(parameters: EndpointParameters, transport: WebRTCTransport, settings: PrecallSettings, now: UInt64) {
        self.parameters = parameters
        self.transport = transport
        self.settings = settings
        created = now
        downlink = DownlinkRamp(maxKbps: settings.maxKbps)
        transportCCID = parameters.video?.extensions.transportCC ?? parameters.audio?.extensions.transportCC
        // Padding needs a receiving m-line and transport-cc to be judged.
        probe = parameters.video.flatMap { $0.extensions.transportCC != nil && settings.probesDownlink ? $0 : nil }
        probeMid = Array((probe?.mid ?? "").utf8)
        rttSamples.reserveCapacity(Self.maxRTTSamples)
    }

    // MARK: Transport

    func transportDidConnect(_ transport: WebRTCTransport) {
        let now = MonotonicClock.nowMicros()
        started = now
        downlink.begin(now: now)
        nextProgress = now + Self.progressMicros
    }

    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) {
        guard !finished else { return }
        finished = true
        report(.failed(parameters.handle, FailureReason(failure)))
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        guard !finished, let packet = RTPPacket(parsing: bytes) else { return }
        if let id = transportCCID, let value = packet.extensionValue(id: id),
           let sequence = TransportWideSequenceNumber.read(UnsafeRawBufferPointer(value)) {
            feedback.record(sequence: sequence, arrival: now)
        }
        let audio = parameters.audio.map { packet.payloadType == $0.payloadType } ?? false
        let track = audio ? parameters.audio : parameters.video
        let repair = track?.rtxPayloadType == packet.payloadType
            || (!audio && packet.payloadType != parameters.video?.payloadType)
        uplink.record(ssrc: packet.ssrc, sequence: packet.sequenceNumber, timestamp: packet.timestamp, size: bytes.count,
                      clockRate: track?.clockRate ?? 90_000, audio: audio, repair: repair, now: now)
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTCP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        guard !finished else { return }
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(bytes))
        while let (packet, _) = iterator.next() {
            switch packet.packetType {
            case RTCPPacketType.transportFeedback where packet.count == RTCPTransportWideCC.format:
                if let twcc = RTCPTransportWideCC(parsing: packet.bytes) { downlink.received(twcc, history: history) }
            case RTCPPacketType.receiverReport:
                if let rr = RTCPReceiverReport(parsing: packet.bytes) { read(rr.reportBlocks) }
            case RTCPPacketType.senderReport:
                // A client that sends media reports what it receives in its sender reports.
                if let sr = RTCPSenderReport(parsing: packet.bytes) { read(sr.reportBlocks) }
            default:
                break
            }
        }
    }

    private func read(_ blocks: [RTCPReportBlock]) {
        guard let probe else { return }
        for block in blocks where block.ssrc == probe.localSSRC {
            remoteJitterMs = Double(block.jitter) * 1000 / Double(probe.clockRate)
            guard block.lastSenderReport != 0 else { continue }
            let nowNTP = UInt32(truncatingIfNeeded: MonotonicClock.ntpNow() >> 16)
            let rtt = nowNTP &- block.lastSenderReport &- block.delaySinceLastSenderReport
            if rtt < 65536 * 10, rttSamples.count < Self.maxRTTSamples {
                rttSamples.append(Double(rtt) * 1000 / 65536)
            }
        }
    }

    // MARK: Tick

    func tick(now: UInt64) {
        guard !finished else { return }
        guard started > 0 else {
            if now >= created + settings.connectMicros {
                finished = true
                report(.failed(parameters.handle, .iceTimeout))
            }
            return
        }
        // Any of the client's SSRCs: transport-wide feedback is about the transport.
        let mediaSSRC = parameters.video?.remoteSSRCs.first ?? parameters.audio?.remoteSSRCs.first ?? 1
        if let twcc = feedback.feedback(now: now, senderSSRC: reporterSSRC, mediaSSRC: mediaSSRC) {
            sendRTCP { writer in twcc.write(into: &writer) }
        }
        downlink.tick(now: now)
        sendProbe(now: now)
        if now >= nextSenderReport {
            nextSenderReport = now + Self.senderReportMicros
            sendSenderReport(now: now)
        }
        let end = started + UInt64(settings.seconds) * 1_000_000
        if now >= end {
            finished = true
            report(.precallDone(parameters.handle, figures(now: now)))
        } else if now >= nextProgress {
            nextProgress += Self.progressMicros
            report(.precallProgress(parameters.handle, figures(now: now)))
        }
    }

    func figures(now: UInt64) -> PrecallFigures {
        var figures = PrecallFigures()
        figures.elapsedMs = started > 0 && now > started ? Int((now - started) / 1000) : 0
        figures.uplinkKbps = uplink.bestKbps.map { $0.rounded() }
        figures.lossUp = uplink.lossFraction.map(Self.fraction)
        figures.downlinkKbps = downlink.bestAckedKbps.map { $0.rounded() }
        figures.lossDown = downlink.lossFraction.map(Self.fraction)
        let jitters = [uplink.jitterMs, remoteJitterMs].compactMap { $0 }
        figures.jitterMs = jitters.max().map { ($0 * 10).rounded() / 10 }
        if !rttSamples.isEmpty {
            let sorted = rttSamples.sorted()
            figures.rttMs = (sorted[sorted.count / 2] * 10).rounded() / 10
        }
        return figures
    }

    private static func fraction(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

    // MARK: Sending

    /// Padding-only packets (RFC 3550 P bit, 255 bytes of padding) up to this tick's budget,
    /// with a transport-wide sequence number each; timestamps follow the send clock at 90 kHz,
    /// so the client's jitter of them is the path's.
    private func sendProbe(now: UInt64) {
        guard let probe, transport.isConnected else { return }
        let pool = transport.worker.pool
        var remaining = downlink.budget(tickMicros: MediaWorker.tickMicros)
        let timestamp = UInt32(truncatingIfNeeded: now * UInt64(probe.clockRate) / 1_000_000)
        while remaining > 0, let buffer = pool.take() {
            let raw = UnsafeMutableRawBufferPointer(start: pool.pointer(buffer), count: PacketBufferPool.bufferSize)
            var writer = ByteWriter(raw)
            var extensions = RTPHeaderExtensionList()
            let ids = probe.extensions
            if let id = ids.mid { _ = probeMid.withUnsafeBytes { extensions.append(id: id, value: $0) } }
            if let id = ids.absSendTime { _ = extensions.append(id: id, uint24: AbsSendTime.value(micros: now)) }
            if let id = ids.transportCC { _ = extensions.append(id: id, uint16: transportSequence) }
            let header = RTPHeader(marker: false, payloadType: probe.payloadType, sequenceNumber: probeSequence,
                                   timestamp: timestamp, ssrc: probe.localSSRC)
            _ = header.write(into: &writer, extensions: extensions)
            guard RTPPadding.fill(&writer, packet: raw) else {
                pool.give(buffer)
                return
            }
            history.record(sequence: transportSequence, size: writer.offset, now: now)
            transportSequence &+= 1
            probeSequence &+= 1
            probePackets &+= 1
            probeBytes &+= UInt32(writer.offset)
            remaining -= writer.offset + precallWireOverheadBytes
            transport.sendRTP(buffer: buffer, length: writer.offset)
        }
    }

    private func sendSenderReport(now: UInt64) {
        guard let probe, probePackets > 0 else { return }
        let sr = RTCPSenderReport(ssrc: probe.localSSRC, ntpTimestamp: MonotonicClock.ntpNow(),
                                  rtpTimestamp: UInt32(truncatingIfNeeded: now * UInt64(probe.clockRate) / 1_000_000),
                                  packetCount: probePackets, octetCount: probeBytes, reportBlocks: [])
        sendRTCP { writer in sr.write(into: &writer) }
    }

    private func sendRTCP(_ build: (inout ByteWriter) -> Void) {
        guard transport.isConnected else { return }
        rtcpScratch.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            build(&writer)
            guard !writer.overflowed else { return }
            transport.sendRTCP(UnsafeRawBufferPointer(rebasing: raw[0..<writer.offset]))
        }
    }
}
