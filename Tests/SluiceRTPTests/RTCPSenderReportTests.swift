import Testing
@testable import SluiceRTP

/// Sender report with one report block (RFC 3550 section 6.4.1).
let senderReportBytes: [UInt8] = [
    0x81, 0xc8, 0x00, 0x0c,  // V=2 P=0 RC=1, PT=200, length 12 (52 bytes)
    0x90, 0x2f, 0x9e, 0x2e,  // SSRC of sender
    0xda, 0x8b, 0xd1, 0xfc,  // NTP timestamp, seconds
    0xdd, 0xdd, 0xa0, 0x5a,  // NTP timestamp, fraction
    0xaa, 0xf4, 0xed, 0xd5,  // RTP timestamp
    0x00, 0x00, 0x00, 0x01,  // sender's packet count
    0x00, 0x00, 0x00, 0x02,  // sender's octet count
    0xbc, 0x5e, 0x9a, 0x40,  // report block: SSRC
    0x00, 0x00, 0x00, 0x00,  // fraction lost 0, cumulative lost 0
    0x00, 0x00, 0x46, 0xe1,  // extended highest sequence number 18145
    0x00, 0x00, 0x01, 0x11,  // interarrival jitter 273
    0x09, 0xf3, 0x64, 0x32,  // LSR
    0x00, 0x01, 0x2c, 0xa1,  // DLSR
]

@Test func parsesAndSerializesSenderReport() throws {
    let report = try #require(senderReportBytes.withUnsafeBytes { RTCPSenderReport(parsing: $0) })
    #expect(report.ssrc == 0x902f_9e2e)
    #expect(report.ntpTimestamp == 0xda8b_d1fc_dddd_a05a)
    #expect(report.compactNTP == 0xd1fc_dddd)
    #expect(report.rtpTimestamp == 0xaaf4_edd5)
    #expect(report.packetCount == 1)
    #expect(report.octetCount == 2)
    #expect(report.reportBlocks == [RTCPReportBlock(
        ssrc: 0xbc5e_9a40, fractionLost: 0, cumulativeLost: 0, extendedHighestSequenceNumber: 18145,
        jitter: 273, lastSenderReport: 0x09f3_6432, delaySinceLastSenderReport: 0x0001_2ca1)])
    #expect(report.serializedSize == senderReportBytes.count)
    #expect(serialize(size: report.serializedSize) { report.write(into: &$0) } == senderReportBytes)
}

@Test func senderReportRejectsMissingBlock() {
    // RC=1 but the length covers only the sender info.
    var bytes = Array(senderReportBytes[0..<28])
    bytes[3] = 0x06
    #expect(bytes.withUnsafeBytes { RTCPSenderReport(parsing: $0) } == nil)
    // Not a sender report.
    var receiver = senderReportBytes
    receiver[1] = 201
    #expect(receiver.withUnsafeBytes { RTCPSenderReport(parsing: $0) } == nil)
}
