import Testing
@testable import SluiceRTP

/// REMB of 1 Mbit/s for one SSRC (draft-alvestrand-rmcat-remb section 2.2).
let rembBytes: [UInt8] = [
    0x8f, 0xce, 0x00, 0x05,  // V=2 P=0 FMT=15, PT=206, length 5 (24 bytes)
    0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender
    0x00, 0x00, 0x00, 0x00,  // SSRC of media source: unused
    0x52, 0x45, 0x4d, 0x42,  // "REMB"
    0x01,                    // one SSRC
    0x0b, 0xd0, 0x90,        // exponent 2, mantissa 250000: 1,000,000 bit/s
    0x0a, 0x0b, 0x0c, 0x0d,  // SSRC
]

@Test func parsesAndSerializesREMB() throws {
    let remb = try #require(rembBytes.withUnsafeBytes { RTCPREMB(parsing: $0) })
    #expect(remb.exponent == 2 && remb.mantissa == 250_000)
    #expect(remb.bitrate == 1_000_000)
    #expect(remb.ssrcs == [0x0a0b_0c0d])
    #expect(serialize(size: remb.serializedSize) { remb.write(into: &$0) } == rembBytes)
    #expect(RTCPREMB(senderSSRC: 1, bitrate: 1_000_000, ssrcs: [0x0a0b_0c0d]) == remb)
}

@Test func rembBitrateEncoding() {
    #expect(RTCPREMB(senderSSRC: 0, bitrate: 262_143, ssrcs: []).exponent == 0)
    let big = RTCPREMB(senderSSRC: 0, bitrate: 5_000_000_000, ssrcs: [])
    #expect(big.mantissa <= 0x3_ffff)
    #expect(big.bitrate <= 5_000_000_000 && big.bitrate > 4_999_000_000)
    #expect(RTCPREMB(senderSSRC: 0, mantissa: 0x3_ffff, exponent: 63, ssrcs: []).bitrate == .max)
}

@Test func rembRejectsWrongIdentifierAndShortSSRCList() {
    var wrong = rembBytes
    wrong[12] = 0x58
    #expect(wrong.withUnsafeBytes { RTCPREMB(parsing: $0) } == nil)
    var short = rembBytes
    short[16] = 2
    #expect(short.withUnsafeBytes { RTCPREMB(parsing: $0) } == nil)
}
