import Testing
@testable import SluiceDataChannel

/// The check every SCTP packet passes on the worker before usrsctp sees it.
@Suite struct SCTPPacketCheckTests {
    func packet(source: UInt16 = 5000, destination: UInt16 = 5000, tag: UInt32 = 7, _ chunks: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(source >> 8), UInt8(source & 0xff), UInt8(destination >> 8), UInt8(destination & 0xff),
                              UInt8(tag >> 24), UInt8((tag >> 16) & 0xff), UInt8((tag >> 8) & 0xff), UInt8(tag & 0xff),
                              0, 0, 0, 0]
        for chunk in chunks { bytes += chunk }
        return bytes
    }

    func chunk(type: UInt8, body: Int) -> [UInt8] {
        let length = 4 + body
        var bytes: [UInt8] = [type, 0, UInt8(length >> 8), UInt8(length & 0xff)] + [UInt8](repeating: 0xab, count: body)
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    func check(_ bytes: [UInt8], local: UInt16 = 5000, remote: UInt16 = 5000) throws -> SCTPPacketCheck {
        try bytes.withUnsafeBytes { try SCTPPacketCheck(packet: $0, localPort: local, remotePort: remote) }
    }

    @Test func acceptsBundledChunksWithPadding() throws {
        // A DATA chunk of 17 bytes (padded to 20) and a SACK.
        let result = try check(packet([chunk(type: 0, body: 13), chunk(type: 3, body: 12)]))
        #expect(result.chunks == 2 && result.initChunks == 0)
    }

    @Test func acceptsALastChunkWithoutItsPadding() throws {
        var bytes = packet([chunk(type: 0, body: 13)])
        bytes.removeLast(3)
        #expect(try check(bytes).chunks == 1)
    }

    @Test func countsAnInit() throws {
        let result = try check(packet(tag: 0, [chunk(type: 1, body: 16)]))
        #expect(result.initChunks == 1)
    }

    @Test func refusesWhatIsNotWellFormed() {
        #expect(throws: SCTPPacketCheck.Rejection.tooShort(8)) { try check([UInt8](repeating: 0, count: 8)) }
        #expect(throws: SCTPPacketCheck.Rejection.noChunks) { try check(packet([])) }
        #expect(throws: SCTPPacketCheck.Rejection.wrongPorts(source: 5001, destination: 5000)) {
            try check(packet(source: 5001, [chunk(type: 0, body: 4)]))
        }
        // A chunk claiming more bytes than the packet has, and one shorter than its header.
        #expect(throws: SCTPPacketCheck.Rejection.badChunkLength(offset: 12, length: 100)) {
            try check(packet([[0, 0, 0, 100, 1, 2, 3, 4]]))
        }
        #expect(throws: SCTPPacketCheck.Rejection.badChunkLength(offset: 12, length: 2)) {
            try check(packet([[0, 0, 0, 2]]))
        }
        #expect(throws: SCTPPacketCheck.Rejection.badChunkLength(offset: 20, length: 2)) {
            try check(packet([chunk(type: 3, body: 4), [0, 0]]))
        }
        #expect(throws: SCTPPacketCheck.Rejection.initNotAlone) {
            try check(packet(tag: 0, [chunk(type: 1, body: 16), chunk(type: 0, body: 4)]))
        }
        #expect(throws: SCTPPacketCheck.Rejection.initWithTag) { try check(packet(tag: 9, [chunk(type: 1, body: 16)])) }
    }
}
