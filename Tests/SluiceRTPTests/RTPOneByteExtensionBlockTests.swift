import SluiceWire
import Testing
@testable import SluiceRTP

@Suite struct RTPOneByteExtensionBlockTests {
    /// Appends `elements` to `sink`, each through the entry point its size takes.
    private func append<Sink: RTPHeaderExtensionSink>(_ elements: [(UInt8, [UInt8])], to sink: inout Sink) {
        for (id, value) in elements {
            switch value.count {
            case 1: sink.append(id: id, uint8: value[0])
            case 2: sink.append(id: id, uint16: UInt16(value[0]) << 8 | UInt16(value[1]))
            case 3: sink.append(id: id, uint24: UInt32(value[0]) << 16 | UInt32(value[1]) << 8 | UInt32(value[2]))
            default: value.withUnsafeBytes { sink.append(id: id, value: $0) }
            }
        }
    }

    /// Writes `header` with `elements` both ways and returns the two packets.
    private func bothWays(_ header: RTPHeader, _ elements: [(UInt8, [UInt8])]) -> ([UInt8], [UInt8]) {
        var list = RTPHeaderExtensionList()
        append(elements, to: &list)
        var first = [UInt8](repeating: 0xAA, count: 200)
        var second = [UInt8](repeating: 0xAA, count: 200)
        let a = first.withUnsafeMutableBytes { raw -> Int? in
            var writer = ByteWriter(raw)
            return header.write(into: &writer, extensions: list)
        }
        let b = second.withUnsafeMutableBytes { raw -> Int? in
            var writer = ByteWriter(raw)
            var block = RTPOneByteExtensionBlock(header: header, writer: writer)
            append(elements, to: &block)
            return block.finish(into: &writer)
        }
        return (Array(first[0..<(a ?? 0)]), Array(second[0..<(b ?? 0)]))
    }

    @Test func writesTheSameBytesAsTheList() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<2_000 {
            let header = RTPHeader(marker: round % 2 == 0, payloadType: UInt8(round % 128), sequenceNumber: UInt16(round),
                                   timestamp: UInt32.random(in: 0...UInt32.max, using: &generator),
                                   ssrc: UInt32.random(in: 0...UInt32.max, using: &generator))
            let count = Int.random(in: 1...5, using: &generator)
            let elements = (0..<count).map { _ -> (UInt8, [UInt8]) in
                let length = Int.random(in: 1...16, using: &generator)
                return (UInt8.random(in: 1...14, using: &generator),
                        (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            }
            let (list, block) = bothWays(header, elements)
            #expect(!list.isEmpty)
            #expect(list == block, "elements \(elements)")
        }
    }

    @Test func aBlockThatDoesNotFitOverflowsTheWriter() {
        var storage = [UInt8](repeating: 0, count: 16)
        let offset = storage.withUnsafeMutableBytes { raw -> Int? in
            var writer = ByteWriter(raw)
            var block = RTPOneByteExtensionBlock(header: RTPHeader(marker: false, payloadType: 96, sequenceNumber: 1,
                                                                   timestamp: 2, ssrc: 3), writer: writer)
            block.append(id: 3, uint24: 0x123456)
            return block.finish(into: &writer)
        }
        #expect(offset == nil)
    }
}
