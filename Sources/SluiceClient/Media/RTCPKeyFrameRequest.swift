import SluiceRTP
import SluiceWire

/// Finds a key frame request (PLI, RFC 4585, or FIR, RFC 5104) in a compound RTCP packet.
public enum RTCPKeyFrameRequest {
    static let firFormat: UInt8 = 4

    /// True when `compound` holds a PLI for `mediaSSRC` or a FIR entry naming it. Allocates nothing.
    public static func contains(_ compound: UnsafeRawBufferPointer, mediaSSRC: UInt32) -> Bool {
        var packets = RTCPCompoundIterator(compound)
        while let (packet, _) = packets.next() {
            guard packet.packetType == RTCPPacketType.payloadFeedback else { continue }
            let body = packet.body
            if packet.count == RTCPPictureLossIndication.format {
                if body.count >= 8, body.loadBigEndianUInt32(at: 4) == mediaSSRC { return true }
            } else if packet.count == firFormat {
                // After sender and media SSRC, FCI entries of 8 bytes: SSRC, sequence number, reserved.
                var offset = 8
                while offset + 8 <= body.count {
                    if body.loadBigEndianUInt32(at: offset) == mediaSSRC { return true }
                    offset += 8
                }
            }
        }
        return false
    }
}
