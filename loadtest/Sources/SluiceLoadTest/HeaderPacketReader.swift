import SluiceClient
import SluiceRTP

/// Reads what `--player-receive headers` counts from an SRTP packet without unprotecting it:
/// the RTP header (RFC 3550 5.1: fixed part, CSRCs, extension block), which SRTP leaves in
/// clear, and in it the abs-send-time stamp the server wrote. The payload and the trailing
/// authentication tag are ciphertext and are never read.
public struct HeaderPacketReader: Sendable {
    public var videoPayloadType: Int
    public var audioPayloadType: Int
    /// The abs-send-time extension ids the answer negotiated per kind.
    public var videoStampID: UInt8?
    public var audioStampID: UInt8?

    public init(videoPayloadType: Int, audioPayloadType: Int, videoStampID: UInt8?, audioStampID: UInt8?) {
        self.videoPayloadType = videoPayloadType
        self.audioPayloadType = audioPayloadType
        self.videoStampID = videoStampID
        self.audioStampID = audioStampID
    }

    public init(answer: ServerAnswer) {
        self.init(videoPayloadType: answer.video.map { Int($0.payloadType) } ?? -1,
                  audioPayloadType: answer.audio.map { Int($0.payloadType) } ?? -1,
                  videoStampID: answer.video?.extensionIDs[RTPHeaderExtensionURI.absSendTime],
                  audioStampID: answer.audio?.extensionIDs[RTPHeaderExtensionURI.absSendTime])
    }

    /// Records one SRTP packet in `probe`; false when `datagram` is no RTP packet with a whole
    /// header (RTCP, or garbage), which the caller hands on instead. Clears the P bit in the
    /// datagram: the padding count is the payload's last byte, encrypted, so the stats get the
    /// header alone without it (an empty payload: nothing reads ciphertext).
    public func read(_ datagram: UnsafeMutableRawBufferPointer, now: UInt64, into probe: PlayerProbe) -> Bool {
        guard RTPPacket.looksLikeRTP(UnsafeRawBufferPointer(datagram)),
              let length = Self.clearHeaderLength(UnsafeRawBufferPointer(datagram)) else { return false }
        datagram[0] &= ~0x20
        guard let packet = RTPPacket(parsing: UnsafeMutableRawBufferPointer(rebasing: datagram[0..<length])) else { return false }
        let type = Int(packet.payloadType)
        let kind: TrackKind? = type == videoPayloadType ? .video : type == audioPayloadType ? .audio : nil
        var delay: UInt64?
        if let id = kind == .audio ? audioStampID : videoStampID, let value = packet.extensionValue(id: id),
           let sent = AbsSendTime.read(UnsafeRawBufferPointer(value)) {
            delay = AbsSendTimeDelay.micros(sent: sent, now: now)
        }
        probe.recordHeader(packet, kind: kind, delayMicros: delay, now: now)
        return true
    }

    /// Fixed header, CSRCs and the extension block, all in clear; nil when they do not fit.
    public static func clearHeaderLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= RTPPacket.fixedHeaderLength else { return nil }
        var length = RTPPacket.fixedHeaderLength + 4 * Int(bytes[0] & 0x0f)
        if bytes[0] & 0x10 != 0 {
            guard length + 4 <= bytes.count else { return nil }
            length += 4 + 4 * (Int(bytes[length + 2]) << 8 | Int(bytes[length + 3]))
        }
        return length <= bytes.count ? length : nil
    }
}
