import SluiceWire

/// Goodbye, PT 203 (RFC 3550 section 6.6).
public struct RTCPBye: Equatable, Sendable {
    /// At most 31 sources; `write` sends the first 31.
    public var ssrcs: [UInt32]
    /// Raw reason bytes (at most 255 are written); empty when none is given.
    public var reason: [UInt8]

    public init(ssrcs: [UInt32], reason: [UInt8] = []) {
        self.ssrcs = ssrcs
        self.reason = reason
    }

    /// Parses the first packet of `buffer`.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.bye) else { return nil }
        var reader = ByteReader(packet.body)
        var ssrcs: [UInt32] = []
        for _ in 0..<packet.count {
            guard let ssrc = reader.readUInt32() else { return nil }
            ssrcs.append(ssrc)
        }
        var reason: [UInt8] = []
        if let length = reader.readUInt8() {
            guard let text = reader.readBytes(Int(length)) else { return nil }
            reason = Array(text)
        }
        self.init(ssrcs: ssrcs, reason: reason)
    }

    var reasonLength: Int { min(reason.count, 255) }

    public var serializedSize: Int {
        let sources = 4 + min(ssrcs.count, 31) * 4
        return reason.isEmpty ? sources : sources + (1 + reasonLength + 3) & ~3
    }

    public func write(into writer: inout ByteWriter) {
        let sent = ssrcs.prefix(31)
        RTCPPacket.writeHeader(into: &writer, count: UInt8(sent.count), type: RTCPPacketType.bye,
                               size: serializedSize)
        for ssrc in sent { writer.write(ssrc) }
        guard !reason.isEmpty else { return }
        let length = reasonLength
        writer.write(UInt8(length))
        reason.withUnsafeBytes { writer.write(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        writer.write(zeros: (1 + length + 3) & ~3 - 1 - length)
    }
}
