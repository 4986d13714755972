import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// Writes what a player's forwarder decided: the header this player negotiated (SSRC,
/// payload type, mid, abs-send-time, transport-wide sequence, audio level) and the payload,
/// once, into a pool buffer that SRTP then encrypts in place, and hands it to the transport.
/// It remembers what it sent: for NACKs (`SentPacketMap`), for transport-cc feedback
/// (`SendHistory`) and for sender reports.
final class RTPSender {
    let transport: WebRTCTransport
    /// The worker's buffer pool, which outlives every sender on the worker. Unmanaged so that
    /// a packet does not retain and release it: `transport.worker.pool` held across the
    /// header's calls did (perf), and so does an `unowned(unsafe)` reference, around each call.
    private let poolReference: Unmanaged<PacketBufferPool>

    /// A pool buffer and its bytes, or nil when the pool is empty (the packet is dropped).
    @inline(__always)
    private func takeBuffer() -> (index: Int32, raw: UnsafeMutableRawBufferPointer)? {
        poolReference._withUnsafeGuaranteedRef { pool in
            pool.take().map { ($0, UnsafeMutableRawBufferPointer(start: pool.pointer($0), count: PacketBufferPool.bufferSize)) }
        }
    }

    @inline(__always)
    private func giveBack(_ buffer: Int32) { poolReference._withUnsafeGuaranteedRef { $0.give(buffer) } }

    /// What each packet writes, in memory the sender owns (`OwnedState`) rather than stored
    /// `var`s: those a packet mutates through calls would each cost a dynamic exclusivity
    /// check per packet (docs/design.md, hot-path rule 8). Worker thread only; no access
    /// overlaps another.
    struct SendState {
        var audio: OutgoingTrack?
        var video: OutgoingTrack?
        var history: SendHistory
        var sent = SentPacketMap()
        var transportSequence: UInt16 = 1
        /// The transport-wide sequence number the header being written took, or -1.
        var pendingTransportSequence: Int32 = -1
        /// The descriptor frame number offset of the last packet sent, which a retransmission
        /// takes too (one of a layer the player left before the NACK came gets it wrong).
        var frameNumberOffset: UInt16 = 0
    }
    let state: OwnedState<SendState>
    private var rtcpScratch = [UInt8](repeating: 0, count: 1500)
    /// A dependency descriptor rewritten for this player (its active decode targets): a value
    /// is at most 255 bytes, and the rewrite adds at most 5.
    private let dependencyScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 264, alignment: 8)
    /// Which tracks exist (fixed at init): `audio != nil` on the packet path copied the whole
    /// optional track out of its storage to compare it (an outlined copy, with a retain and a
    /// release of each of its references, per packet: perf).
    private let hasAudio: Bool
    private let hasVideo: Bool

    init(transport: WebRTCTransport, audio: TrackParameters?, video: TrackParameters?) {
        self.transport = transport
        poolReference = Unmanaged.passUnretained(transport.worker.pool)
        hasAudio = audio != nil
        hasVideo = video != nil
        state = OwnedState(SendState(
            audio: audio.map(OutgoingTrack.init), video: video.map(OutgoingTrack.init),
            history: SendHistory(enabled: audio?.extensions.transportCC != nil || video?.extensions.transportCC != nil)))
    }

    deinit { dependencyScratch.deallocate() }

    /// `value` (a descriptor, maybe already in the scratch) in the scratch with its frame number
    /// moved by `offset` (bytes 1 and 2 of the mandatory fields).
    private func renumbered(_ value: UnsafeRawBufferPointer, by offset: UInt16) -> UnsafeRawBufferPointer {
        guard value.count >= 3, value.count <= dependencyScratch.count else { return value }
        if value.baseAddress != UnsafeRawPointer(dependencyScratch.baseAddress) {
            dependencyScratch.baseAddress!.copyMemory(from: value.baseAddress!, byteCount: value.count)
        }
        let number = (UInt16(dependencyScratch[1]) << 8 | UInt16(dependencyScratch[2])) &+ offset
        dependencyScratch[1] = UInt8(number >> 8)
        dependencyScratch[2] = UInt8(number & 0xff)
        return UnsafeRawBufferPointer(rebasing: dependencyScratch[..<value.count])
    }

    /// What goes to the player now (kbit/s), both kinds (padding not counted), for the estimators.
    var sentKbps: Double { (state.video?.bitrate.kbps ?? 0) + (state.audio?.bitrate.kbps ?? 0) }
    var videoAtFrameBoundary: Bool { state.video?.atFrameBoundary ?? false }

    // MARK: Forwarded packets (hot path)

    /// Sends `item` as `rewrite` says. False when it could not (no buffer, too big).
    @inline(__always)
    @discardableResult
    func send(_ item: borrowing ForwardedPacket, _ rewrite: ForwardRewrite) -> Bool {
        if item.kind == .audio {
            guard hasAudio else { return false }
            return send(item, rewrite, track: &state.audio!, dependency: nil)
        }
        guard hasVideo else { return false }
        return send(item, rewrite, track: &state.video!, dependency: nil)
    }

    /// The same for a packet with a dependency descriptor (`ForwardedPacket.dependency`), which
    /// goes on as the publisher wrote it to a player that took it, with the active decode targets
    /// the forwarder tells (`ForwardRewrite.activeTargets`). An entry of its own: the
    /// packets of streams without one keep a path with no trace of it (with the descriptor's
    /// header in `send`, its header writer stopped being inlined: about 150 instructions more
    /// per VP8 packet in callgrind).
    @inline(never)
    @discardableResult
    func sendDescribed(_ item: borrowing ForwardedPacket, _ rewrite: ForwardRewrite) -> Bool {
        guard hasVideo else { return false }
        var dependency: UnsafeRawBufferPointer?
        if state.video!.extensionIDs.dependencyDescriptor != nil {
            dependency = item.dependency?.bytes(in: UnsafeRawBufferPointer(item.packet.buffer))
            if let source = dependency, let active = rewrite.activeTargets, let frame = item.dependency,
               let length = DependencyActiveTargets.write(source, attachesStructure: frame.attachesStructure,
                                                          structureEndBit: Int(active.structureEndBit),
                                                          targets: Int(active.count), mask: active.mask,
                                                          into: dependencyScratch), length <= 255 {
                dependency = UnsafeRawBufferPointer(rebasing: dependencyScratch[..<length])
            }
            state.frameNumberOffset = rewrite.frameNumberOffset
            if rewrite.frameNumberOffset != 0, let value = dependency { dependency = renumbered(value, by: rewrite.frameNumberOffset) }
        }
        return send(item, rewrite, track: &state.video!, dependency: dependency)
    }

    @inline(__always)
    private func send(_ item: borrowing ForwardedPacket, _ rewrite: ForwardRewrite, track: inout OutgoingTrack,
                      dependency: UnsafeRawBufferPointer?) -> Bool {
        let packet = item.packet
        guard let (buffer, raw) = takeBuffer() else { return false }
        var writer = ByteWriter(raw)
        // Video, and plain Opus, as they came; Opus in RED as RED or its primary (`redChoice`).
        var payloadType = track.parameters.payloadType
        var payload = UnsafeRawBufferPointer(packet.payload)
        var redBlocks = 0
        if let red = item.red { (payloadType, payload, redBlocks) = redChoice(red, payload: payload, track: &track) }
        let payloadOffset: Int
        if let dependency {
            payloadOffset = writeHeaderWithDependency(&writer, track: track, payloadType: payloadType,
                                                      marker: packet.marker || rewrite.setsMarker,
                                                      sequence: rewrite.sequence, timestamp: rewrite.timestamp,
                                                      now: item.now, dependency: dependency)
        } else {
            payloadOffset = writeHeader(&writer, track: track, payloadType: payloadType,
                                        marker: packet.marker || rewrite.setsMarker,
                                        sequence: rewrite.sequence, timestamp: rewrite.timestamp,
                                        audioLevel: item.audioLevel, now: item.now)
        }
        writer.write(bytes: payload)
        guard !writer.overflowed else {
            giveBack(buffer)
            return false
        }
        if redBlocks > 0 {
            REDPayload.setBlockPayloadTypes(track.parameters.payloadType, blocks: redBlocks,
                                            in: UnsafeMutableRawBufferPointer(rebasing: raw[payloadOffset..<writer.offset]))
        }
        var descriptor: (pictureID: Int32, tl0PicIdx: Int16) = (-1, -1)
        if let vp8 = rewrite.vp8 {
            vp8.apply(to: UnsafeMutableRawBufferPointer(rebasing: raw[payloadOffset..<writer.offset]))
            descriptor = (vp8.pictureID, vp8.tl0PicIdx)
        }
        if item.kind == .video {
            track.frames.record(timestamp: rewrite.timestamp)
            state.sent.record(.init(outTimestamp: rewrite.timestamp, pictureID: descriptor.pictureID,
                              outSequence: rewrite.sequence, sourceSequence: packet.sequenceNumber,
                              tl0PicIdx: descriptor.tl0PicIdx,
                              layer: UInt8(truncatingIfNeeded: item.layer) & 0x7f
                                  | (rewrite.setsMarker ? SentPacketMap.markerFlag : 0),
                              valid: true))
        }
        track.countSent(timestamp: rewrite.timestamp)
        track.packets += 1
        track.bytes += UInt64(writer.offset)
        track.lastRTPTimestamp = rewrite.timestamp
        track.lastSendMicros = item.now
        track.atFrameBoundary = packet.marker || rewrite.setsMarker
        if item.isKeyFrame {
            track.keyFrames += 1
            track.keyFrameTimestamp = rewrite.timestamp
        }
        emit(buffer: buffer, length: writer.offset, now: item.now)
        return true
    }

    /// What this player gets of an Opus packet in RED (`REDForwarding`): the payload type, the
    /// bytes, and how many block headers to set to its Opus type (0: none). Out of line, so
    /// the video path, which never comes here, carries none of it.
    @inline(never)
    private func redChoice(_ red: REDPayload, payload: UnsafeRawBufferPointer,
                           track: inout OutgoingTrack) -> (UInt8, UnsafeRawBufferPointer, Int) {
        let out = REDForwarding(red: red, payloadCount: payload.count, opusPayloadType: track.parameters.payloadType,
                                redPayloadType: track.parameters.redPayloadType)
        if out.sendsRED { track.redPackets &+= 1 }
        return (out.payloadType, UnsafeRawBufferPointer(rebasing: payload[out.range]), out.blocksToRewrite)
    }

    /// This player's RTP header for `track`: its SSRC, payload type and the header extensions
    /// it negotiated. Returns where the payload goes.
    @inline(__always)
    private func writeHeader(_ writer: inout ByteWriter, track: borrowing OutgoingTrack, payloadType: UInt8, marker: Bool,
                             sequence: UInt16, timestamp: UInt32, audioLevel: UInt8?, now: UInt64) -> Int {
        let header = RTPHeader(marker: marker, payloadType: payloadType, sequenceNumber: sequence,
                               timestamp: timestamp, ssrc: track.parameters.localSSRC)
        guard track.oneByteExtensions else {
            var extensions = RTPHeaderExtensionList()
            appendExtensions(to: &extensions, track: track, audioLevel: audioLevel, now: now)
            return header.write(into: &writer, extensions: extensions) ?? 0
        }
        var block = RTPOneByteExtensionBlock(header: header, writer: writer)
        appendExtensions(to: &block, track: track, audioLevel: audioLevel, now: now)
        return block.finish(into: &writer) ?? 0
    }

    /// The same with the dependency descriptor last, always through a list (a descriptor that
    /// brings its structure needs the two-byte form). Out of line: the packets of streams
    /// without the descriptor never come here, and carry none of it.
    @inline(never)
    private func writeHeaderWithDependency(_ writer: inout ByteWriter, track: borrowing OutgoingTrack, payloadType: UInt8,
                                           marker: Bool, sequence: UInt16, timestamp: UInt32, now: UInt64,
                                           dependency: UnsafeRawBufferPointer) -> Int {
        let header = RTPHeader(marker: marker, payloadType: payloadType, sequenceNumber: sequence,
                               timestamp: timestamp, ssrc: track.parameters.localSSRC)
        var extensions = RTPHeaderExtensionList()
        appendExtensions(to: &extensions, track: track, audioLevel: nil, now: now)
        guard let id = track.extensionIDs.dependencyDescriptor else { return header.write(into: &writer, extensions: extensions) ?? 0 }
        return header.write(into: &writer, extensions: extensions, appending: id, value: dependency) ?? 0
    }

    /// The header extensions of one packet on `track` (RTX included): mid, abs-send-time, a
    /// transport-wide sequence number, audio level, as negotiated. Into a list, or straight
    /// into the packet when every id fits the one-byte form (`OutgoingTrack.oneByteExtensions`).
    @inline(__always)
    private func appendExtensions<Sink: RTPHeaderExtensionSink>(to sink: inout Sink, track: borrowing OutgoingTrack,
                                                               audioLevel: UInt8?, now: UInt64) {
        let ids = track.extensionIDs
        // Each header says for itself whether it took a number (a packet dropped after its
        // header was written must not leave its number to the next one).
        state.pendingTransportSequence = -1
        if let id = ids.mid {
            if let mid = track.mid {
                _ = mid.withUnsafeBytes { sink.append(id: id, value: $0) }
            } else {
                _ = track.longMid.withUnsafeBytes { sink.append(id: id, value: $0) }
            }
        }
        if let id = ids.absSendTime { sink.append(id: id, uint24: AbsSendTime.value(micros: now)) }
        if let id = ids.transportCC {
            sink.append(id: id, uint16: state.transportSequence)
            state.pendingTransportSequence = Int32(state.transportSequence)
            state.transportSequence &+= 1
        }
        if let id = ids.audioLevel, let level = audioLevel { sink.append(id: id, uint8: level) }
    }

    /// Every RTP packet to the player leaves here, so the send history sees them all.
    @inline(__always)
    private func emit(buffer: Int32, length: Int, now: UInt64) {
        if state.pendingTransportSequence >= 0 {
            state.history.record(sequence: UInt16(truncatingIfNeeded: state.pendingTransportSequence), size: length,
                                 now: now)
            state.pendingTransportSequence = -1
        }
        transport.sendRTP(buffer: buffer, length: length)
    }

    // MARK: Packets the server makes

    /// Padding-only RTP packets on the video stream (RFC 3550 P bit), up to `budget` bytes,
    /// with the extensions the player's estimator reads. Each takes the sequence number
    /// `nextSequence` gives (the forwarder's, so the stream stays unbroken) and goes in the
    /// sent map, so a NACK of a lost one is answered: unanswered, Chromium NACKed it ten times
    /// and stalled its frames behind the hole (interop/test_workers.py lost half its frames).
    /// They stay off the RTX stream, where Chromium would count each as a retransmission.
    /// At most `OutgoingTrack.maxPacketsPerTimestamp` packets share the last frame's
    /// timestamp. Returns the bytes sent.
    func sendPadding(budget: Int, now: UInt64, nextSequence: () -> (sequenceNumber: UInt16, timestamp: UInt32)?) -> Int {
        guard let video = state.video, transport.isConnected else { return 0 }
        var remaining = budget
        while remaining > 0, state.video!.takePaddingSlot() {
            guard let (buffer, raw) = takeBuffer() else { break }
            guard let (sequence, timestamp) = nextSequence() else {
                giveBack(buffer)
                break
            }
            var writer = ByteWriter(raw)
            _ = writeHeader(&writer, track: video, payloadType: video.parameters.payloadType, marker: false,
                            sequence: sequence, timestamp: timestamp, audioLevel: nil, now: now)
            state.sent.record(.init(outTimestamp: timestamp, pictureID: -1, outSequence: sequence, sourceSequence: 0,
                                    tl0PicIdx: -1, layer: SentPacketMap.paddingLayer, valid: true))
            guard RTPPadding.fill(&writer, packet: raw) else {
                giveBack(buffer)
                break
            }
            remaining -= writer.offset
            emit(buffer: buffer, length: writer.offset, now: now)
        }
        return budget - remaining
    }

    /// Answers a NACK: rebuilds the packet sent as `outSequence` from the producer's stored
    /// copy, with the same timestamp and VP8 fields. With RTX negotiated it goes out on the RTX
    /// stream (RFC 4588: RTX SSRC, payload type and sequence, `outSequence` ahead of the
    /// payload); without, as it was first sent, same SSRC and sequence (SRTP allows the repeat).
    func retransmit(_ outSequence: UInt16, from upstream: any StreamUpstream, now: UInt64) {
        guard let video = state.video, let entry = state.sent.lookup(outSequence) else { return }
        if entry.layer == SentPacketMap.paddingLayer {
            repeatPadding(outSequence, timestamp: entry.outTimestamp, now: now)
            return
        }
        guard !video.precedesKeyFrame(entry.outTimestamp),
              let stored = upstream.storedPacket(layer: Int(entry.layer & 0x7f), sequence: entry.sourceSequence),
              let source = RTPPacket(parsing: stored) else { return }
        guard let (buffer, raw) = takeBuffer() else { return }
        var writer = ByteWriter(raw)
        // The stored packet is the publisher's: its descriptor under the publisher's id.
        var dependency: UnsafeRawBufferPointer?
        if video.extensionIDs.dependencyDescriptor != nil, let id = upstream.dependencyDescriptorID,
           let value = source.extensionValue(id: id) {
            dependency = UnsafeRawBufferPointer(value)
            if state.frameNumberOffset != 0 { dependency = renumbered(dependency!, by: state.frameNumberOffset) }
        }
        let marker = source.marker || entry.layer & SentPacketMap.markerFlag != 0
        let payloadOffset: Int
        if video.rtx != nil {
            var extensions = RTPHeaderExtensionList()
            appendExtensions(to: &extensions, track: video, audioLevel: nil, now: now)
            let appending = dependency.flatMap { value in video.extensionIDs.dependencyDescriptor.map { (id: $0, value: value) } }
            payloadOffset = state.video!.rtx!.writeHeader(into: &writer, marker: marker, timestamp: entry.outTimestamp,
                                                         originalSequence: outSequence, extensions: extensions,
                                                         appending: appending) ?? 0
        } else if let dependency {
            payloadOffset = writeHeaderWithDependency(&writer, track: video, payloadType: video.parameters.payloadType,
                                                      marker: marker, sequence: outSequence,
                                                      timestamp: entry.outTimestamp, now: now, dependency: dependency)
        } else {
            payloadOffset = writeHeader(&writer, track: video, payloadType: video.parameters.payloadType,
                                        marker: marker, sequence: outSequence,
                                        timestamp: entry.outTimestamp, audioLevel: nil, now: now)
        }
        writer.write(bytes: UnsafeRawBufferPointer(source.payload))
        guard !writer.overflowed else {
            giveBack(buffer)
            return
        }
        if entry.pictureID >= 0 || entry.tl0PicIdx >= 0 {
            VP8Munger.write(pictureID: entry.pictureID, tl0PicIdx: entry.tl0PicIdx,
                            into: UnsafeMutableRawBufferPointer(rebasing: raw[payloadOffset..<writer.offset]))
        }
        emit(buffer: buffer, length: writer.offset, now: now)
    }

    /// A lost padding packet, sent again as it was (on the media stream, RTX or not: it
    /// repairs no payload).
    private func repeatPadding(_ sequence: UInt16, timestamp: UInt32, now: UInt64) {
        guard let video = state.video, let (buffer, raw) = takeBuffer() else { return }
        var writer = ByteWriter(raw)
        _ = writeHeader(&writer, track: video, payloadType: video.parameters.payloadType, marker: false,
                        sequence: sequence, timestamp: timestamp, audioLevel: nil, now: now)
        guard RTPPadding.fill(&writer, packet: raw) else { return giveBack(buffer) }
        emit(buffer: buffer, length: writer.offset, now: now)
    }

    // MARK: Reports

    /// Samples the send rates (once a second).
    func sampleRates(now: UInt64) {
        if let total = state.audio?.bytes { state.audio!.bitrate.sample(totalBytes: total, now: now) }
        if let total = state.video?.bytes {
            state.video!.bitrate.sample(totalBytes: total, now: now)
            state.video!.frames.sample(now: now)
        }
    }

    /// One SR per sending SSRC, mapping wall-clock time to the RTP clock of the last packet
    /// sent, extrapolated to now, so the player can sync audio and video.
    func sendSenderReports(now: UInt64) {
        let ntp = MonotonicClock.ntpNow()
        for track in [state.audio, state.video] {
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
}
