import Testing
@testable import SluiceTransport

/// Feeds `stream` to a decoder in the given pieces; returns the frames (copied) and whether
/// the decoder reported an oversize frame (and its length).
private func decode(_ stream: [UInt8], cuts: [Int], maxFrameLength: Int = 2048) -> (frames: [[UInt8]], tooLong: Int?) {
    var decoder = RFC4571FrameDecoder(maxFrameLength: maxFrameLength)
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: maxFrameLength, alignment: 16)
    defer { storage.deallocate() }
    var frames: [[UInt8]] = []
    var bounds = [0] + cuts.filter { $0 > 0 && $0 < stream.count } + [stream.count]
    bounds = Array(Set(bounds)).sorted()
    for (start, end) in zip(bounds, bounds.dropFirst()) {
        var piece = Array(stream[start..<end])
        let result: Int? = piece.withUnsafeMutableBytes { input in
            var offset = 0
            while true {
                switch decoder.nextFrame(in: input, offset: &offset, storage: storage) {
                case .frame(let frame): frames.append(Array(frame))
                case .needMoreInput:
                    #expect(offset == input.count, "needMoreInput must consume everything")
                    return nil
                case .frameTooLong(let length): return length
                }
            }
        }
        if let result { return (frames, result) }
    }
    return (frames, nil)
}

private func framed(_ packets: [[UInt8]]) -> [UInt8] {
    packets.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xff)] + $0 }
}

struct RFC4571FrameDecoderTests {
    static let packets: [[UInt8]] = [
        [0x00, 0x01, 0x00, 0x00] + Array(repeating: 0x21, count: 16),  // STUN-like, 20 bytes
        Array(repeating: 0x16, count: 1),                               // one byte
        (0..<300).map { UInt8($0 & 0xff) },                             // longer than 255: both length bytes matter
        [0x80, 0x60] + Array(repeating: 0xAB, count: 1198),             // an RTP-sized packet
    ]

    @Test func oneReadWithEveryFrameMerged() {
        let result = decode(framed(Self.packets), cuts: [])
        #expect(result.frames == Self.packets)
        #expect(result.tooLong == nil)
    }

    @Test func splitIntoTwoReadsAtEveryByte() {
        let stream = framed(Self.packets)
        for cut in 1..<stream.count {
            let result = decode(stream, cuts: [cut])
            #expect(result.frames == Self.packets, "cut at \(cut)")
        }
    }

    @Test func oneByteAtATime() {
        let stream = framed(Self.packets)
        let result = decode(stream, cuts: Array(1..<stream.count))
        #expect(result.frames == Self.packets)
    }

    @Test func splitAtEveryPairOfBytesInTheFirstFrames() {
        let stream = framed(Array(Self.packets.prefix(3)))
        for first in 1..<stream.count {
            for second in stride(from: first + 1, to: stream.count, by: 7) {
                #expect(decode(stream, cuts: [first, second]).frames == Array(Self.packets.prefix(3)))
            }
        }
    }

    @Test func emptyFramesCarryNothingAndAreSkipped() {
        let stream: [UInt8] = [0, 0] + framed([[1, 2, 3]]) + [0, 0, 0, 0] + framed([[4]])
        #expect(decode(stream, cuts: []).frames == [[1, 2, 3], [4]])
        #expect(decode(stream, cuts: [1, 3, 6, 8]).frames == [[1, 2, 3], [4]])
    }

    @Test func aFrameOfExactlyTheLimitIsAccepted() {
        let packet = Array(repeating: UInt8(0x80), count: 100)
        #expect(decode(framed([packet]), cuts: [50], maxFrameLength: 100).frames == [packet])
    }

    @Test func anOversizeLengthFailsAndStaysFailed() {
        let stream = framed([[1, 2]]) + [0x01, 0x00] + Array(repeating: 0, count: 300)
        let result = decode(stream, cuts: [], maxFrameLength: 255)
        #expect(result.frames == [[1, 2]])
        #expect(result.tooLong == 256)
        // Split inside the bad length.
        #expect(decode(stream, cuts: [5], maxFrameLength: 255).tooLong == 256)

        var decoder = RFC4571FrameDecoder(maxFrameLength: 16)
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { storage.deallocate() }
        var bad: [UInt8] = [0xFF, 0xFF, 0, 2, 9, 9]
        bad.withUnsafeMutableBytes { input in
            var offset = 0
            guard case .frameTooLong(65535) = decoder.nextFrame(in: input, offset: &offset, storage: storage) else {
                Issue.record("expected frameTooLong(65535)")
                return
            }
            // Nothing after a bad length is read as frames.
            guard case .frameTooLong = decoder.nextFrame(in: input, offset: &offset, storage: storage) else {
                Issue.record("the decoder must stay failed")
                return
            }
        }
    }

    @Test func aFrameWhollyInOneReadAliasesTheInput() {
        var stream = framed([[7, 7, 7]])
        var decoder = RFC4571FrameDecoder(maxFrameLength: 64)
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { storage.deallocate() }
        stream.withUnsafeMutableBytes { input in
            var offset = 0
            guard case .frame(let frame) = decoder.nextFrame(in: input, offset: &offset, storage: storage) else {
                Issue.record("expected a frame")
                return
            }
            #expect(frame.baseAddress == input.baseAddress! + 2)
            #expect(!decoder.isMidFrame)
        }
    }

    @Test func garbageNeverTrapsAndFramesStayWithinTheLimit() {
        var generator = SplitMix(seed: 0x4571)
        for _ in 0..<200 {
            let stream = (0..<Int(generator.next() % 3000)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let cuts = (0..<5).map { _ in Int(generator.next() % 3000) }
            let result = decode(stream, cuts: cuts, maxFrameLength: 1500)
            #expect(result.frames.allSatisfy { !$0.isEmpty && $0.count <= 1500 })
        }
    }
}

/// A small deterministic generator, so a failure repeats.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
