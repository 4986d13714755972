import Testing
@testable import SluiceRTP

/// SPS of a 720x404 baseline stream with emulation prevention bytes (mux.js test vector).
let h264SPS720x404: [UInt8] = [
    0x67, 0x42, 0xc0, 0x1e,  // NAL header (type 7), profile 66, constraints, level 30
    0xd9, 0x00, 0xb4, 0x35, 0xf9, 0xe1, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00,
    0x00, 0x03, 0x00, 0x3c, 0x0f, 0x16, 0x2e, 0x48,
]

@Test func classifiesSingleNALUnits() throws {
    let idr: [UInt8] = [0x65, 0x88, 0x84]
    let slice: [UInt8] = [0x41, 0x9a, 0x00]
    let idrPayload = try #require(idr.withUnsafeBytes { H264Payload(parsing: $0) })
    #expect(idrPayload.isSingleNALUnit && idrPayload.nalUnitType == 5 && idrPayload.isKeyFrame)
    let slicePayload = try #require(slice.withUnsafeBytes { H264Payload(parsing: $0) })
    #expect(slicePayload.nalUnitType == 1 && !slicePayload.isKeyFrame)
    #expect([UInt8]([0x85]).withUnsafeBytes { H264Payload(parsing: $0) } == nil)  // F bit set
    #expect([UInt8]().withUnsafeBytes { H264Payload(parsing: $0) } == nil)
}

@Test func iteratesSTAPAAndFindsSPS() throws {
    var stap: [UInt8] = [0x78]  // STAP-A, NRI=3
    stap += [0x00, UInt8(h264SPS720x404.count)] + h264SPS720x404
    stap += [0x00, 0x04, 0x68, 0xce, 0x3c, 0x80]  // PPS
    stap += [0x00, 0x02, 0x65, 0x88]              // IDR slice
    try stap.withUnsafeBytes { raw in
        let payload = try #require(H264Payload(parsing: raw))
        #expect(payload.isSTAPA && payload.isKeyFrame)
        var units = payload.aggregatedNALUnits
        var types: [UInt8] = []
        while let unit = units.next() { types.append(unit[0] & 0x1f) }
        #expect(types == [7, 8, 5])
        #expect(!units.isMalformed)
        let sps = try #require(payload.sequenceParameterSet)
        let parsed = try #require(H264SequenceParameterSet(parsing: sps))
        #expect(parsed.width == 720 && parsed.height == 404)
    }
}

@Test func malformedSTAPAStopsIteration() throws {
    let stap: [UInt8] = [0x78, 0x00, 0x02, 0x41, 0x00, 0x00, 0x09, 0x65]  // second unit overruns
    try stap.withUnsafeBytes { raw in
        let payload = try #require(H264Payload(parsing: raw))
        #expect(!payload.isKeyFrame)
        var units = payload.aggregatedNALUnits
        let first = units.next(), second = units.next()
        #expect(first?.count == 2 && second == nil)
        #expect(units.isMalformed)
    }
}

@Test func classifiesFUA() throws {
    let start: [UInt8] = [0x7c, 0x85, 0x88]  // FU indicator, FU header S=1 type 5
    let middle: [UInt8] = [0x7c, 0x05, 0x00]
    let end: [UInt8] = [0x7c, 0x45, 0x00]    // E=1
    let first = try #require(start.withUnsafeBytes { H264Payload(parsing: $0) })
    #expect(first.isFUA && first.isFragmentStart && !first.isFragmentEnd)
    #expect(first.fragmentedNALUnitType == 5 && first.isKeyFrame)
    let mid = try #require(middle.withUnsafeBytes { H264Payload(parsing: $0) })
    #expect(!mid.isFragmentStart && !mid.isKeyFrame)
    let last = try #require(end.withUnsafeBytes { H264Payload(parsing: $0) })
    #expect(last.isFragmentEnd && !last.isKeyFrame)
    let truncated = try #require([UInt8]([0x7c]).withUnsafeBytes { H264Payload(parsing: $0) })
    #expect(truncated.fragmentedNALUnitType == nil && !truncated.isKeyFrame)
}
