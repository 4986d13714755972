import Testing
@testable import SluiceRTP

@Test func newCodedVideoSequenceIsKeyFrame() throws {
    let header = try #require([UInt8]([0x18, 0x0a]).withUnsafeBytes { AV1AggregationHeader(parsing: $0) })
    #expect(!header.continuesFragment && !header.fragmentContinues)
    #expect(header.obuCount == 1)
    #expect(header.startsCodedVideoSequence && header.isKeyFrame)
}

@Test func continuationIsNotKeyFrame() throws {
    let header = try #require([UInt8]([0xe0]).withUnsafeBytes { AV1AggregationHeader(parsing: $0) })
    #expect(header.continuesFragment && header.fragmentContinues)
    #expect(header.obuCount == 2)
    #expect(!header.isKeyFrame)
    #expect([UInt8]().withUnsafeBytes { AV1AggregationHeader(parsing: $0) } == nil)
}
