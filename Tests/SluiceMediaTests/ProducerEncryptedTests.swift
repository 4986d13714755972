import SluiceRTP
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// End-to-end encrypted video (docs/protocol.md section 6, "End-to-end encryption"): a
/// producer whose VP8 payload is ciphertext past the clear bytes takes key frames and sizes
/// from the dependency descriptor alone, and finds an undeclared encrypted stream by its key
/// frames' missing start code.
struct ProducerEncryptedTests {
    private static let descriptorID: UInt8 = 5

    /// L1T1 at 640x360: one template, one decode target, its size in the structure.
    private static let structure = DependencyStructure(
        templateIDOffset: 0, decodeTargetCount: 1,
        templates: [FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: [.switchPoint]),
                    FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: [.switchPoint], frameDiffs: [1])],
        resolutions: [.init(width: 640, height: 360)])

    private func producer(encrypted: Bool, descriptor: Bool) throws -> Producer {
        var track = MediaTestSupport.videoTrack()
        track.encrypted = encrypted
        if descriptor { track.extensions.dependencyDescriptor = Self.descriptorID }
        let endpoint = MediaTestSupport.endpoint(.publish, video: track)
        return Producer(parameters: endpoint, transport: try MediaTestSupport.transport(MediaTestSupport.worker(), endpoint),
                        statsBoard: nil)
    }

    /// A VP8 packet whose frame is "encrypted": its first byte says key frame (P bit 0) or
    /// not as `keyBit` asks, and no start code follows. With `frame`, a dependency descriptor
    /// in a two-byte header extension (the structure's key frame, or a delta frame).
    private func packet(sequence: UInt16, timestamp: UInt32, keyBit: Bool, frame: DependencyDescriptor?) -> [UInt8] {
        var bytes = MediaTestSupport.vp8Packet(ssrc: 77, sequence: sequence, timestamp: timestamp)
        let payload = Array(bytes[12...])
        bytes.removeSubrange(12...)
        var encrypted = Array(payload[..<5])
        encrypted += [keyBit ? 0x50 : 0x51, 0x37, 0xc2, 0x11, 0x84, 0x29, 0xee, 0x03, 0x7a, 0x90]
        guard let frame else { return bytes + encrypted }
        var value = [UInt8](repeating: 0, count: 64)
        let count = value.withUnsafeMutableBytes { frame.write(into: $0, latest: frame.structure == nil ? Self.structure : nil) }!
        var block: [UInt8] = [Self.descriptorID, UInt8(count)] + value[..<count]
        while block.count % 4 != 0 { block.append(0) }
        bytes[0] |= 0x10
        let words = block.count / 4
        bytes += [0x10, 0x00, UInt8(words >> 8), UInt8(words & 0xff)] + block
        return bytes + encrypted
    }

    private func keyFrame(_ number: UInt16) -> DependencyDescriptor {
        DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: number,
                             structure: Self.structure, frame: Self.structure.templates[0])
    }

    private func deltaFrame(_ number: UInt16) -> DependencyDescriptor {
        DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 1, frameNumber: number,
                             frame: Self.structure.templates[1])
    }

    private func receive(_ producer: Producer, _ bytes: [UInt8], now: UInt64) {
        var copy = bytes
        copy.withUnsafeMutableBytes { producer.transport(producer.transport, didReceiveRTP: $0, now: now) }
    }

    private func keyFrames(_ producer: Producer) -> UInt64 { producer.stats(now: 10_000_000).video?.keyFrames ?? 0 }

    /// Declared: the key-frame bit of ciphertext is no key frame; the descriptor's structure
    /// frame is one, and its structure gives the size the payload cannot.
    @Test func aDeclaredStreamTakesKeyFramesFromTheDescriptorAlone() throws {
        let producer = try producer(encrypted: true, descriptor: true)
        receive(producer, packet(sequence: 1, timestamp: 0, keyBit: false, frame: keyFrame(1)), now: 1_000)
        #expect(keyFrames(producer) == 1)
        #expect(producer.layerSize(0) == (640, 360))
        receive(producer, packet(sequence: 2, timestamp: 3000, keyBit: true, frame: deltaFrame(2)), now: 2_000)
        receive(producer, packet(sequence: 3, timestamp: 6000, keyBit: true, frame: deltaFrame(3)), now: 3_000)
        #expect(keyFrames(producer) == 1, "a key-frame bit in ciphertext was taken for a key frame")
        #expect(producer.stats(now: 4_000).video?.e2ee == true)
        producer.releaseBuffers()
    }

    /// Undeclared: the first "key frame" without a start code marks the stream encrypted, and
    /// from then the descriptor alone tells key frames.
    @Test func anUndeclaredStreamIsFoundByItsMissingStartCode() throws {
        let producer = try producer(encrypted: false, descriptor: true)
        receive(producer, packet(sequence: 1, timestamp: 0, keyBit: false, frame: keyFrame(1)), now: 1_000)
        #expect(producer.stats(now: 2_000).video?.e2ee == nil)
        receive(producer, packet(sequence: 2, timestamp: 3000, keyBit: true, frame: deltaFrame(2)), now: 2_000)
        #expect(producer.stats(now: 3_000).video?.e2ee == true)
        let found = keyFrames(producer)
        receive(producer, packet(sequence: 3, timestamp: 6000, keyBit: true, frame: deltaFrame(3)), now: 3_000)
        #expect(keyFrames(producer) == found)
        receive(producer, packet(sequence: 4, timestamp: 9000, keyBit: false, frame: keyFrame(4)), now: 4_000)
        #expect(keyFrames(producer) == found + 1)
        producer.releaseBuffers()
    }

    /// Declared, without the descriptor, with VP8's clear bytes kept (10 of a key frame): the
    /// key frame and its size are read from them as from any VP8 stream.
    @Test func clearBytesStillGiveKeyFramesAndSize() throws {
        let producer = try producer(encrypted: true, descriptor: false)
        receive(producer, MediaTestSupport.vp8Packet(ssrc: 77, sequence: 1, timestamp: 0, keyFrame: true, size: (320, 180)),
                now: 1_000)
        #expect(keyFrames(producer) == 1)
        #expect(producer.layerSize(0) == (320, 180))
        producer.releaseBuffers()
    }

    /// A stream in the clear is never taken for encrypted.
    @Test func aStreamInTheClearStaysSo() throws {
        let producer = try producer(encrypted: false, descriptor: false)
        receive(producer, MediaTestSupport.vp8Packet(ssrc: 77, sequence: 1, timestamp: 0, keyFrame: true), now: 1_000)
        receive(producer, MediaTestSupport.vp8Packet(ssrc: 77, sequence: 2, timestamp: 3000), now: 2_000)
        #expect(producer.stats(now: 3_000).video?.e2ee == nil)
        #expect(keyFrames(producer) == 1)
        producer.releaseBuffers()
    }
}
