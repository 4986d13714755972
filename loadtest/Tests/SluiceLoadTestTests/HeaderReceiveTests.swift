import SluiceRTP
import Testing
@testable import SluiceLoadTest

struct HeaderReceiveTests {
    /// An SRTP-shaped packet: a clear header (P and X bits, one CSRC, abs-send-time as a
    /// one-byte extension with id 3), then bytes that stand for the ciphertext and tag. Its last
    /// byte, which a parser would take for the padding count, is 0xff.
    static func srtpPacket(sequence: UInt16, payloadType: UInt8 = 96, stamp: UInt32?, ciphertext: Int = 40) -> [UInt8] {
        var bytes: [UInt8] = [0xA0 | 0x01 | (stamp != nil ? 0x10 : 0), payloadType,
                              UInt8(sequence >> 8), UInt8(sequence & 0xff), 0, 0, 0x10, 0, 0xCA, 0xFE, 0xBA, 0xBE,
                              0, 0, 0, 7]
        if let stamp {
            bytes += [0xBE, 0xDE, 0, 1, 0x32, UInt8(stamp >> 16 & 0xff), UInt8(stamp >> 8 & 0xff), UInt8(stamp & 0xff)]
        }
        bytes += (0..<ciphertext).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        bytes[bytes.count - 1] = 0xff
        return bytes
    }

    static let reader = HeaderPacketReader(videoPayloadType: 96, audioPayloadType: 111, videoStampID: 3, audioStampID: 3)

    @Test func theClearHeaderIsFoundAndTruncatedOnesAreRefused() {
        var packet = Self.srtpPacket(sequence: 1, stamp: 5)
        #expect(packet.withUnsafeBytes { HeaderPacketReader.clearHeaderLength($0) } == 12 + 4 + 4 + 4)
        #expect(Self.srtpPacket(sequence: 1, stamp: nil).withUnsafeBytes { HeaderPacketReader.clearHeaderLength($0) } == 16)
        #expect(packet[0..<22].withUnsafeBytes { HeaderPacketReader.clearHeaderLength($0) } == nil)
        #expect(packet[0..<11].withUnsafeBytes { HeaderPacketReader.clearHeaderLength($0) } == nil)
        // Control: parsed as a whole, the encrypted "padding count" makes it no RTP packet at
        // all, so a header reader that did not drop the P bit would count nothing.
        #expect(packet.withUnsafeMutableBytes { RTPPacket(parsing: $0) } == nil)
    }

    @Test func continuityAndDelayComeFromTheHeaderAloneAndNoKeyFrameFromCiphertext() {
        let probe = PlayerProbe()
        let now: UInt64 = 5_000_000_000
        let sent = AbsSendTime.value(micros: now - 1_500)
        for sequence: UInt16 in [65534, 65535, 0, 2, 2] {
            var packet = Self.srtpPacket(sequence: sequence, stamp: sent)
            #expect(packet.withUnsafeMutableBytes { Self.reader.read($0, now: now, into: probe) })
        }
        var audio = Self.srtpPacket(sequence: 9, payloadType: 111, stamp: nil)
        #expect(audio.withUnsafeMutableBytes { Self.reader.read($0, now: now, into: probe) })
        let state = probe.finalState
        #expect(state.packets == 6 && state.video.packets == 5 && state.audio.packets == 1 && state.unknownKind == 0)
        #expect(state.video.lost == 1 && state.video.gaps == 1 && state.video.duplicates == 1)
        #expect(state.video.payloadBytes == 0 && state.video.keyFrames == 0)
        #expect(state.stampedDelay.count == 4 && state.video.delay.count == 0)
        #expect(state.stampedDelay.maxMicros >= 1_490 && state.stampedDelay.maxMicros <= 1_510)
        var merged = DelayDistribution()
        probe.addDelays(to: &merged)
        #expect(merged.count == 4)
    }

    @Test func rtcpAndNonRTPAreHandedOn() {
        let probe = PlayerProbe()
        var rtcp: [UInt8] = [0x80, 200, 0, 6] + [UInt8](repeating: 1, count: 24)
        var dtls: [UInt8] = [22, 0xfe, 0xfd] + [UInt8](repeating: 0, count: 20)
        #expect(!rtcp.withUnsafeMutableBytes { Self.reader.read($0, now: 1, into: probe) })
        #expect(!dtls.withUnsafeMutableBytes { Self.reader.read($0, now: 1, into: probe) })
        #expect(probe.finalState.packets == 0)
    }

    @Test func absSendTimeDelayWrapsEvery64SecondsAndRefusesTheFuture() {
        let now: UInt64 = 1_000_000_000_000 + 123_456
        #expect(AbsSendTimeDelay.micros(sent: AbsSendTime.value(micros: now), now: now) == 0)
        let ms = AbsSendTimeDelay.micros(sent: AbsSendTime.value(micros: now - 20_000), now: now)!
        #expect(ms >= 19_990 && ms <= 20_010)
        // Across the 64 s wrap of the 24-bit field.
        let wrap: UInt64 = 64_000_000 * 15_625
        let across = AbsSendTimeDelay.micros(sent: AbsSendTime.value(micros: wrap - 3_000), now: wrap + 2_000)!
        #expect(across >= 4_990 && across <= 5_010)
        #expect(AbsSendTimeDelay.micros(sent: AbsSendTime.value(micros: now + 1_000_000), now: now) == nil)
    }
}
