import Testing
@testable import SluiceServer

/// `Range: bytes=...` as recording downloads read it (RFC 9110 section 14).
@Suite struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=0-99", ByteRange.Parsed.range(ByteRange(first: 0, last: 99))),
        ("bytes=100-", .range(ByteRange(first: 100, last: 999))),
        ("bytes=900-5000", .range(ByteRange(first: 900, last: 999))),
        ("bytes=-100", .range(ByteRange(first: 900, last: 999))),
        ("bytes=-5000", .range(ByteRange(first: 0, last: 999))),
        ("Bytes = 5-5 ", .whole),
        ("BYTES=5-5", .range(ByteRange(first: 5, last: 5))),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=5-4", .whole),
        ("bytes=0-1,5-6", .whole),
        ("items=0-1", .whole),
        ("bytes=a-b", .whole),
        ("bytes=-", .whole),
        ("bytes=99999999999999999999-", .whole),
        ("bytes=+1-2", .whole),
    ])
    func parses(header: String, expected: ByteRange.Parsed) {
        #expect(ByteRange.parse(header, size: 1000) == expected, "\(header)")
    }

    @Test func noHeaderAndEmptyFiles() {
        #expect(ByteRange.parse(nil, size: 10) == .whole)
        #expect(ByteRange.parse("bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-10", size: 0) == .unsatisfiable)
    }
}
