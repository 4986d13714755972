import Testing
@testable import SluiceTransport

/// RTP padding that evens a player's datagrams out for UDP GSO runs.
@Suite struct SegmentPaddingTests {
    @Test func padsUpToThePreviousDatagramOfTheSameBatchOnly() {
        var padding = SegmentPadding()
        // Nothing learned yet: no padding.
        #expect(padding.padding(length: 1000, first: 0x90, batch: 7) == 0)
        padding.queued(plainLength: 1001, wireLength: 1017, batch: 7)   // a 16-byte tag
        #expect(padding.padding(length: 1000, first: 0x90, batch: 7) == 1)
        #expect(padding.padding(length: 1001, first: 0x90, batch: 7) == 0)      // equal already
        #expect(padding.padding(length: 1002, first: 0x90, batch: 7) == 0)      // longer: a new run
        #expect(padding.padding(length: 985, first: 0x90, batch: 7) == 16)
        #expect(padding.padding(length: 984, first: 0x90, batch: 7) == 0)       // too far: audio, RTCP
        #expect(padding.padding(length: 1000, first: 0x90, batch: 8) == 0)      // that batch has gone out
        #expect(padding.padding(length: 1000, first: 0xB0, batch: 7) == 0)      // padded already (P set)
    }

    @Test func writesRFC3550PaddingAndSetsThePBit() {
        var bytes = [UInt8](repeating: 0xEE, count: 32)
        bytes[0] = 0x90
        let length = bytes.withUnsafeMutableBytes { SegmentPadding.pad($0.baseAddress!, length: 20, count: 5) }
        #expect(length == 25)
        #expect(bytes[0] == 0xB0)
        #expect(Array(bytes[20..<25]) == [0, 0, 0, 0, 5])
        #expect(bytes[25] == 0xEE)
        let one = bytes.withUnsafeMutableBytes { SegmentPadding.pad($0.baseAddress!, length: 25, count: 1) }
        #expect(one == 26 && bytes[25] == 1)
    }
}
