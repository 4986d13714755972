#if canImport(SluiceTransport)
import SluiceRTP
import SluiceTransport
import SluiceWire

/// Sending (worker thread): RTP built in place in a pool buffer, and the player's RTCP.
extension PeerConnection {
    /// Builds an RTP packet in a pool buffer: header with the connection's SSRC (video: of
    /// simulcast layer `layer`), payload type and next sequence number, the mid, abs-send-time
    /// and transport-wide sequence extensions; then `writePayload` fills the payload in place
    /// and returns its length. Encrypts and queues it. False (nothing sent) before the
    /// connection is up, when the pool is empty, when the layer does not exist, or when
    /// `writePayload` returns 0 or more than it was given. Allocates nothing. `dependency`: a
    /// video packet's dependency descriptor, written when the answer kept the extension.
    @discardableResult
    public func send(_ kind: TrackKind, layer: Int = 0, marker: Bool, timestamp: UInt32, now: UInt64,
                     dependency: UnsafeRawBufferPointer? = nil,
                     writePayload: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        guard kind == .audio || videoStreams.indices.contains(layer) else { return false }
        guard let transport, transport.isConnected, let buffer = worker.pool.take() else { return false }
        let area = UnsafeMutableRawBufferPointer(start: worker.pool.pointer(buffer), count: Self.maxPacketSize)
        var stream = kind == .audio ? audioStream : videoStreams[layer]
        var extensions = RTPHeaderExtensionList()
        if let id = extensionIDs.mid, let mid = stream.midByte { extensions.append(id: id, uint8: mid) }
        if let id = extensionIDs.absSendTime { extensions.append(id: id, uint24: SendExtensionIDs.absSendTime(micros: now)) }
        if let id = extensionIDs.transportCC { extensions.append(id: id, uint16: transportSequence) }
        var writer = ByteWriter(area)
        let header = RTPHeader(marker: marker, payloadType: stream.payloadType, sequenceNumber: stream.sequenceNumber,
                               timestamp: timestamp, ssrc: stream.ssrc)
        let written: Int?
        if kind == .video, let dependency, let id = extensionIDs.dependencyDescriptor {
            written = header.write(into: &writer, extensions: extensions, appending: id, value: dependency)
        } else {
            written = header.write(into: &writer, extensions: extensions)
        }
        guard let offset = written else {
            worker.pool.give(buffer)
            return false
        }
        let space = UnsafeMutableRawBufferPointer(rebasing: area[offset...])
        let length = writePayload(space)
        guard length > 0, length <= space.count else {
            worker.pool.give(buffer)
            return false
        }
        transport.sendRTP(buffer: buffer, length: offset + length)
        stream.sequenceNumber &+= 1
        stream.packets += 1
        stream.bytes += UInt64(length)
        if extensionIDs.transportCC != nil { transportSequence &+= 1 }
        if kind == .audio { audioStream = stream } else { videoStreams[layer] = stream }
        return true
    }

    /// Copies `payload` into a packet; see `send(_:layer:marker:timestamp:now:writePayload:)`.
    @discardableResult
    public func send(_ kind: TrackKind, layer: Int = 0, marker: Bool, timestamp: UInt32, now: UInt64,
                     payload: UnsafeRawBufferPointer) -> Bool {
        send(kind, layer: layer, marker: marker, timestamp: timestamp, now: now) { space in
            guard payload.count <= space.count, let source = payload.baseAddress else { return 0 }
            space.baseAddress!.copyMemory(from: source, byteCount: payload.count)
            return payload.count
        }
    }

    /// Packets and payload bytes sent per kind (video: all layers).
    public func sentCounts(_ kind: TrackKind) -> (packets: UInt64, bytes: UInt64) {
        if kind == .audio { return (audioStream.packets, audioStream.bytes) }
        return videoStreams.reduce((0, 0)) { ($0.0 + $1.packets, $0.1 + $1.bytes) }
    }

    /// Encrypts and sends an RTCP compound packet.
    public func sendRTCP(_ bytes: UnsafeRawBufferPointer) {
        transport?.sendRTCP(bytes)
    }

    /// A player's PLI for the server's video SSRC.
    public func requestKeyFrame() {
        guard remoteVideoSSRC != 0 else { return }
        let pli = RTCPPictureLossIndication(senderSSRC: localSSRC, mediaSSRC: remoteVideoSSRC)
        withUnsafeTemporaryAllocation(byteCount: pli.serializedSize, alignment: 4) { raw in
            var writer = ByteWriter(raw)
            pli.write(into: &writer)
            if !writer.overflowed { sendRTCP(UnsafeRawBufferPointer(raw)) }
        }
    }

    /// A player's REMB: the bandwidth it can take, in bits per second (control rate: allocates).
    public func sendREMB(bitrate: UInt64) {
        let ssrcs = answer.map { ($0.video?.ssrcs ?? []) + ($0.audio?.ssrcs ?? []) } ?? []
        let remb = RTCPREMB(senderSSRC: localSSRC, bitrate: bitrate, ssrcs: ssrcs)
        var bytes = [UInt8](repeating: 0, count: remb.serializedSize)
        bytes.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            remb.write(into: &writer)
            if !writer.overflowed { sendRTCP(UnsafeRawBufferPointer(raw)) }
        }
    }
}
#endif
