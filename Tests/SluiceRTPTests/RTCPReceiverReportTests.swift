import Testing
@testable import SluiceRTP

/// Receiver report whose cumulative loss is negative (duplicates outnumber losses).
let receiverReportBytes: [UInt8] = [
    0x81, 0xc9, 0x00, 0x07,  // V=2 P=0 RC=1, PT=201, length 7 (32 bytes)
    0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender
    0x12, 0x34, 0x56, 0x78,  // report block: SSRC of source
    0x40, 0xff, 0xff, 0xfe,  // fraction lost 64/256, cumulative lost -2 (24-bit signed)
    0x00, 0x01, 0x00, 0x05,  // extended highest sequence number: cycle 1, seq 5
    0x00, 0x00, 0x00, 0x20,  // jitter 32
    0x00, 0x00, 0x00, 0x00,  // LSR: no SR received yet
    0x00, 0x00, 0x00, 0x00,  // DLSR
]

@Test func parsesAndSerializesReceiverReport() throws {
    let report = try #require(receiverReportBytes.withUnsafeBytes { RTCPReceiverReport(parsing: $0) })
    #expect(report.ssrc == 1)
    let block = try #require(report.reportBlocks.first)
    #expect(block.ssrc == 0x1234_5678)
    #expect(block.fractionLost == 64)
    #expect(block.cumulativeLost == -2)
    #expect(block.extendedHighestSequenceNumber == 0x0001_0005)
    #expect(block.jitter == 32)
    #expect(serialize(size: report.serializedSize) { report.write(into: &$0) } == receiverReportBytes)
}

@Test func emptyReceiverReportRoundTrips() throws {
    let bytes: [UInt8] = [0x80, 0xc9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x09]
    let report = try #require(bytes.withUnsafeBytes { RTCPReceiverReport(parsing: $0) })
    #expect(report == RTCPReceiverReport(ssrc: 9))
    #expect(serialize(size: report.serializedSize) { report.write(into: &$0) } == bytes)
}

@Test func cumulativeLostIsClampedTo24Bits() throws {
    let block = RTCPReportBlock(ssrc: 1, fractionLost: 0, cumulativeLost: 10_000_000,
                                extendedHighestSequenceNumber: 0, jitter: 0, lastSenderReport: 0,
                                delaySinceLastSenderReport: 0)
    let bytes = try #require(serialize(size: 24) { block.write(into: &$0) })
    #expect(bytes[4..<8] == [0x00, 0x7f, 0xff, 0xff])
}
