import Testing
@testable import SluiceRTP

/// Transport-wide CC feedback with one two-bit status vector chunk and padding
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
let transportWideCCBytes: [UInt8] = [
    0xaf, 0xcd, 0x00, 0x06,  // V=2 P=1 FMT=15, PT=205, length 6 (28 bytes)
    0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender
    0x00, 0x00, 0x00, 0x02,  // SSRC of media source
    0x00, 0x0a,              // base sequence number 10
    0x00, 0x04,              // packet status count 4
    0x00, 0x00, 0x10,        // reference time 16 (x 64 ms)
    0x07,                    // feedback packet count 7
    0xd2, 0x40,              // status vector, 2-bit: small, not received, large, small, (0, 0, 0)
    0x04,                    // delta seq 10: 4 ticks (1 ms)
    0xff, 0xfe,              // delta seq 12: -2 ticks
    0x08,                    // delta seq 13: 8 ticks
    0x00, 0x02,              // padding: 2 bytes
]

@Test func parsesAndSerializesTransportWideCC() throws {
    let feedback = try #require(transportWideCCBytes.withUnsafeBytes { RTCPTransportWideCC(parsing: $0) })
    #expect(feedback.senderSSRC == 1 && feedback.mediaSSRC == 2)
    #expect(feedback.baseSequenceNumber == 10)
    #expect(feedback.packetStatusCount == 4)
    #expect(feedback.referenceTime == 16)
    #expect(feedback.feedbackPacketCount == 7)
    #expect(feedback.chunks == [0xd240])
    #expect(feedback.deltas == [4, -2, 8])
    #expect(feedback.packets == [
        .init(sequenceNumber: 10, status: .receivedSmallDelta, delta: 4),
        .init(sequenceNumber: 11, status: .notReceived, delta: 0),
        .init(sequenceNumber: 12, status: .receivedLargeDelta, delta: -2),
        .init(sequenceNumber: 13, status: .receivedSmallDelta, delta: 8),
    ])
    #expect(serialize(size: feedback.serializedSize) { feedback.write(into: &$0) } == transportWideCCBytes)
}

@Test func runLengthChunkAndNegativeReferenceTime() throws {
    var bytes: [UInt8] = [
        0xaf, 0xcd, 0x00, 0x0a,  // P=1, length 10 (44 bytes)
        0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x02,
        0xff, 0xfe,              // base sequence number 65534: wraps
        0x00, 0x14,              // 20 packets
        0xff, 0xff, 0xff,        // reference time -1
        0x00,
        0x20, 0x14,              // run length: symbol 1 (small delta), 20 packets
    ]
    bytes += [UInt8](repeating: 0x01, count: 20) + [0x00, 0x02]
    let feedback = try #require(bytes.withUnsafeBytes { RTCPTransportWideCC(parsing: $0) })
    #expect(feedback.referenceTime == -1)
    let packets = feedback.packets
    #expect(packets.count == 20)
    #expect(packets.map(\.sequenceNumber).prefix(3) == [65534, 65535, 0])
    #expect(packets.allSatisfy { $0.status == .receivedSmallDelta && $0.delta == 1 })
    #expect(serialize(size: feedback.serializedSize) { feedback.write(into: &$0) } == bytes)
}

@Test func rejectsMissingDeltasAndReservedSymbols() {
    var missing = transportWideCCBytes
    missing[0] = 0x8f
    missing[3] = 0x05  // 24 bytes: chunk and only two of the four delta bytes
    #expect(Array(missing[0..<24]).withUnsafeBytes { RTCPTransportWideCC(parsing: $0) } == nil)
    var reserved = transportWideCCBytes
    reserved[20] = 0xf2  // first 2-bit symbol 3
    #expect(reserved.withUnsafeBytes { RTCPTransportWideCC(parsing: $0) } == nil)
}

@Test(arguments: [
    [Int16?]([1, nil, 300, -5, 2]),
    Array(repeating: 3, count: 40) + [nil, nil, 7],
    Array(repeating: nil, count: 30) + [1],
    (0..<50).map { $0 % 3 == 0 ? nil : Int16($0) },
    [],
])
func buildsFeedbackThatParsesBack(arrivals: [Int16?]) throws {
    let built = RTCPTransportWideCC(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65530, referenceTime: -3,
                                    feedbackPacketCount: 9, arrivals: arrivals)
    let bytes = try #require(serialize(size: built.serializedSize) { built.write(into: &$0) })
    #expect(bytes.count % 4 == 0)
    let parsed = try #require(bytes.withUnsafeBytes { RTCPTransportWideCC(parsing: $0) })
    #expect(parsed == built)
    #expect(parsed.packets.map { $0.status == .notReceived ? nil : $0.delta } == arrivals)
    #expect(parsed.packets.first?.sequenceNumber ?? 65530 == 65530)
}
