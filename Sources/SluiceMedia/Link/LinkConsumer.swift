import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// The origin's end of a relay link: a consumer of the stream that forwards every packet of
/// the layers its edge wants (audio always; every layer until the edge says: "Layers on a
/// link") to one edge node, each layer on its own SSRC, untouched but for its SSRC and
/// sequence number (docs/cluster.md, "Relay links"). The edge's producer treats the link as
/// a simulcast publisher: it tells layers apart by SSRC, NACKs what is missing (answered here
/// from the producer's one stored copy), and asks for key frames per layer (passed to the
/// producer's per-layer gate).
///
/// Sequence numbers: each kind and layer keeps one offset from the source's numbers, so the
/// link is as unbroken as the source, a NACKed number maps straight back to the source's,
/// and a new publisher continues the link's numbering. Timestamps pass through; sender
/// reports per layer carry the publisher's own clock mapping (from its sender reports), so
/// the edge's players switch layers on true timestamps.
final class LinkConsumer: StreamSink, WebRTCTransportDelegate, WorkerTickable {
    let parameters: LinkParameters
    let transport: WebRTCTransport
    var report: (WorkerEvent) -> Void = { _ in }
    /// RTP packets sent on the link, for /metrics (`LinkPacketLedger`).
    let sentPackets = LinkPacketCounter()

    /// Per outgoing stream (audio first, then each video layer), in memory the link owns:
    /// touched per packet (docs/design.md hot-path rule 8).
    private struct Outgoing {
        var ssrc: UInt32
        /// Link number minus source number; nil until the first packet after a (re)start.
        var offset: UInt16?
        /// `packets` when `offset` took effect: a NACK for a number sent before then is of
        /// another run (another offset), so it is not answered.
        var runStart: UInt32 = 0
        var lastSequence: UInt16 = 0
        var lastTimestamp: UInt32 = 0
        var packets: UInt32 = 0
        var octets: UInt32 = 0
        var sent = false
    }
    private let outgoing: UnsafeMutablePointer<Outgoing>
    /// The video layers the edge wants (docs/cluster.md, "Layers on a link"), in memory the
    /// link owns like `outgoing`: read per packet.
    private let filter: UnsafeMutablePointer<LinkLayerFilter>
    private let outgoingCount: Int
    private let videoBase: Int
    private var nextReport: UInt64 = 0
    /// The stream's state as the edge is told it (`RTCPLinkState`): sent on change and every
    /// `stateIntervalMicros`, which also tells the edge the link is alive when no media flows.
    private var mute: RTCPLinkState.Mute
    private var stateSerial: UInt32 = 0
    private var nextState: UInt64 = 0
    static let stateIntervalMicros: UInt64 = 250_000
    private var rtcpScratch = [UInt8](repeating: 0, count: 1500)

    init(parameters: LinkParameters, transport: WebRTCTransport) {
        self.parameters = parameters
        self.transport = transport
        mute = parameters.mute.wire
        var streams: [Outgoing] = []
        if let audio = parameters.audioSSRC { streams.append(Outgoing(ssrc: audio)) }
        videoBase = streams.count
        streams += parameters.videoSSRCs.map { Outgoing(ssrc: $0) }
        outgoingCount = streams.count
        outgoing = .allocate(capacity: max(1, streams.count))
        outgoing.initialize(from: streams, count: streams.count)
        filter = .allocate(capacity: 1)
        filter.initialize(to: LinkLayerFilter())
    }

    deinit {
        outgoing.deinitialize(count: outgoingCount)
        outgoing.deallocate()
        filter.deinitialize(count: 1)
        filter.deallocate()
    }

    @inline(__always)
    private func index(kind: MediaKind, layer: Int) -> Int? {
        if kind == .audio { return parameters.audioSSRC == nil ? nil : 0 }
        let i = videoBase + layer
        return layer >= 0 && i < outgoingCount ? i : nil
    }

    /// The layers the edge's players need, as its last request said (every one before it).
    override var wantedVideoLayers: UInt32 { filter.pointee.mask }

    /// The source came or went: the next packet of each stream continues the link's numbering.
    override func sourceChanged(present: Bool) {
        for i in 0..<outgoingCount { outgoing[i].offset = nil }
        if present && transport.isConnected { upstream?.requestKeyFrame(layer: nil) }
    }

    // MARK: Forwarding (hot path)

    @inline(__always)
    override func forward(_ item: borrowing ForwardedPacket) {
        guard transport.isConnected, filter.pointee.carries(kind: item.kind, layer: item.layer),
              let i = index(kind: item.kind, layer: item.layer) else { return }
        let source = item.packet.sequenceNumber
        if outgoing[i].offset == nil {
            outgoing[i].offset = outgoing[i].sent ? (outgoing[i].lastSequence &+ 1) &- source : 0
            outgoing[i].runStart = outgoing[i].packets
        }
        let sequence = source &+ outgoing[i].offset!
        guard send(UnsafeRawBufferPointer(item.packet.buffer), ssrc: outgoing[i].ssrc, sequence: sequence) else { return }
        outgoing[i].sent = true
        outgoing[i].lastSequence = sequence
        outgoing[i].lastTimestamp = item.packet.timestamp
        outgoing[i].packets &+= 1
        outgoing[i].octets &+= UInt32(truncatingIfNeeded: item.packet.payloadLength)
    }

    /// The packet copied once into a pool buffer with the link's SSRC and number, then
    /// protected and queued by the transport.
    @inline(__always)
    private func send(_ bytes: UnsafeRawBufferPointer, ssrc: UInt32, sequence: UInt16) -> Bool {
        let pool = transport.worker.pool
        guard bytes.count >= 12, bytes.count <= PacketBufferPool.bufferSize - 64, let buffer = pool.take() else { return false }
        let base = pool.pointer(buffer)
        base.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        base.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
        base.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        transport.sendRTP(buffer: buffer, length: bytes.count)
        sentPackets.add()
        return true
    }

    /// The origin's mute state of the stream changed: the edge hears it at the next tick.
    func setMute(_ mute: RTCPLinkState.Mute) {
        guard mute != self.mute else { return }
        self.mute = mute
        stateSerial &+= 1
        nextState = 0
    }

    // MARK: Transport delegate

    func transportDidConnect(_ transport: WebRTCTransport) {
        upstream?.requestKeyFrame(layer: nil)
    }

    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) {
        report(.failed(parameters.handle, FailureReason(failure)))
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        // The edge sends no media on a link.
    }

    /// The edge's NACKs, answered from the producer's stored copy under the link's numbers,
    /// its key-frame requests, per layer, and the layers it wants.
    func transport(_ transport: WebRTCTransport, didReceiveRTCP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(bytes))
        while let (packet, _) = iterator.next() {
            switch packet.packetType {
            case RTCPPacketType.transportFeedback where packet.count == 1:
                guard let nack = RTCPGenericNACK(parsing: packet.bytes), let i = stream(ssrc: nack.mediaSSRC) else { continue }
                for pair in nack.pairs { pair.forEachLost { retransmit($0, stream: i) } }
            case RTCPPacketType.payloadFeedback where packet.count == RTCPPictureLossIndication.format:
                guard let pli = RTCPPictureLossIndication(parsing: packet.bytes),
                      let i = stream(ssrc: pli.mediaSSRC), i >= videoBase else { continue }
                upstream?.requestKeyFrame(layer: i - videoBase)
            case RTCPPacketType.application:
                guard let request = RTCPLinkLayers(parsing: packet.bytes) else { continue }
                wantedLayers(request)
            default:
                continue
            }
        }
    }

    /// The edge's players need these layers now: the others stop here, and each layer that
    /// starts continues the link's numbering (the edge sees no gap to NACK) and asks the
    /// publisher for a key frame, which the edge's switching player waits for.
    private func wantedLayers(_ request: RTCPLinkLayers) {
        let before = filter.pointee.mask
        guard var added = filter.pointee.apply(serial: request.serial, mask: request.mask) else { return }
        // The origin's dynacast counts the edge's players as takers.
        if filter.pointee.mask != before { upstream?.wantedLayersChanged() }
        while added != 0 {
            let layer = added.trailingZeroBitCount
            added &= added - 1
            guard videoBase + layer < outgoingCount else { continue }
            outgoing[videoBase + layer].offset = nil
            if transport.isConnected { upstream?.requestKeyFrame(layer: layer) }
        }
    }

    private func stream(ssrc: UInt32) -> Int? {
        (0..<outgoingCount).first { outgoing[$0].ssrc == ssrc }
    }

    private func retransmit(_ sequence: UInt16, stream i: Int) {
        guard i >= videoBase, let offset = outgoing[i].offset,
              UInt32(outgoing[i].lastSequence &- sequence) < outgoing[i].packets &- outgoing[i].runStart,
              let stored = upstream?.storedPacket(layer: i - videoBase, sequence: sequence &- offset) else { return }
        _ = send(UnsafeRawBufferPointer(stored), ssrc: outgoing[i].ssrc, sequence: sequence)
    }

    // MARK: Reports

    /// Sender reports once a second: each video layer with the publisher's wall clock of its
    /// last timestamp, so the edge maps layers' clocks as the origin does.
    func tick(now: UInt64) {
        guard transport.isConnected else { return }
        if now >= nextState {
            nextState = now + Self.stateIntervalMicros
            sendState()
        }
        guard now >= nextReport else { return }
        nextReport = now + 1_000_000
        guard let upstream else { return }
        for i in videoBase..<outgoingCount where outgoing[i].sent {
            guard let wall = upstream.captureMicros(layer: i - videoBase, timestamp: outgoing[i].lastTimestamp),
                  wall > 0 else { continue }
            // The producer's clock is in microseconds since the NTP epoch (its sender reports').
            let micros = UInt64(wall)
            let ntp = (micros / 1_000_000) << 32 | ((micros % 1_000_000) << 32) / 1_000_000
            let sr = RTCPSenderReport(ssrc: outgoing[i].ssrc, ntpTimestamp: ntp, rtpTimestamp: outgoing[i].lastTimestamp,
                                      packetCount: outgoing[i].packets, octetCount: outgoing[i].octets, reportBlocks: [])
            sendRTCP { sr.write(into: &$0) }
        }
    }

    /// The stream's mute state and every layer as the origin measures it, so the edge's
    /// players see the layers this link does not carry now (off the packet path: 4 a second).
    private func sendState() {
        let layers = (upstream?.measuredLayers ?? []).map { layer in
            RTCPLinkState.Layer(width: UInt16(clamping: layer.width), height: UInt16(clamping: layer.height),
                                fpsCenti: UInt16(clamping: Self.whole(layer.fps * 100)), active: layer.active,
                                bitrateKbps: UInt32(clamping: Self.whole(layer.bitrateKbps)))
        }
        let state = RTCPLinkState(senderSSRC: outgoingCount > 0 ? outgoing[0].ssrc : 0, serial: stateSerial, mute: mute, layers: layers)
        sendRTCP { state.write(into: &$0) }
    }

    /// A measured figure as a whole number; 0 when it is not finite (`Int(_:)` traps on those).
    static func whole(_ value: Double) -> Int {
        value.isFinite ? Int(max(0, min(value, 4_000_000_000)).rounded()) : 0
    }

    private func sendRTCP(_ write: (inout ByteWriter) -> Void) {
        rtcpScratch.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            write(&writer)
            guard !writer.overflowed else { return }
            transport.sendRTCP(UnsafeRawBufferPointer(rebasing: raw[0..<writer.offset]))
        }
    }
}
