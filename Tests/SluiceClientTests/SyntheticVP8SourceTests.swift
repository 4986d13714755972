import SluiceClient
import SluiceTestMedia
import SluiceRTP
import Testing

struct SyntheticVP8SourceTests {
    /// Writes every packet of `frame` and returns them as byte arrays.
    private func packets(of frame: SyntheticVP8Frame, sendTime: UInt64 = 1234) -> [[UInt8]] {
        (0..<frame.packetCount).map { index in
            var bytes = [UInt8](repeating: 0, count: 1500)
            let length = bytes.withUnsafeMutableBytes { frame.writePacket(index, into: $0, sendTime: sendTime) }
            return Array(bytes.prefix(length))
        }
    }

    @Test func firstFrameIsAKeyFrameWithItsSizeAndAValidDescriptor() throws {
        var source = SyntheticVP8Source(.init(width: 1280, height: 720, fps: 30, bitrateKbps: 2000, keyFrameIntervalSeconds: 2))
        let frame = try source.nextFrame(now: 1_000_000).unwrapped()
        #expect(frame.isKeyFrame)
        #expect(frame.packetCount > 1)
        let all = packets(of: frame, sendTime: 777)
        #expect(all.map(\.count).reduce(0, +) == frame.size + frame.packetCount * SyntheticVP8Source.descriptorSize)
        for (index, packet) in all.enumerated() {
            #expect(packet.count <= 1200)
            try packet.withUnsafeBytes { raw in
                let descriptor = try #require(VP8PayloadDescriptor(parsing: raw))
                #expect(descriptor.isStartOfPartition == (index == 0))
                #expect(descriptor.partitionIndex == 0)
                #expect(descriptor.pictureID == frame.pictureID && descriptor.hasLongPictureID)
                #expect(descriptor.isKeyFrame == (index == 0))
                if index == 0 {
                    let size = try #require(descriptor.keyFrameSize(in: raw))
                    #expect(size.width == 1280 && size.height == 720)
                }
                #expect(SendTimeProbe.read(vp8Payload: raw) == 777)
            }
            #expect(frame.isLastPacket(index) == (index == all.count - 1))
        }
    }

    @Test func deltaFramesFollowAndKeyFramesRecurEveryInterval() throws {
        var source = SyntheticVP8Source(.init(fps: 10, bitrateKbps: 500, keyFrameIntervalSeconds: 1))
        #expect(source.keyFrameInterval == 10)
        var keys: [Int] = []
        var pictureIDs: [UInt16] = []
        var timestamps: [UInt32] = []
        for i in 0..<25 {
            // Exactly on each frame's schedule: 100 ms apart.
            let frame = try source.nextFrame(now: 5_000_000 + UInt64(i) * 100_000).unwrapped()
            let again = source.nextFrame(now: 5_000_000 + UInt64(i) * 100_000)
            #expect(again == nil)
            if frame.isKeyFrame { keys.append(i) }
            pictureIDs.append(frame.pictureID)
            timestamps.append(frame.rtpTimestamp)
            let first = packets(of: frame)[0]
            first.withUnsafeBytes { raw in
                #expect(VP8PayloadDescriptor(parsing: raw)?.isKeyFrame == frame.isKeyFrame)
                // The frame tag's P bit, after the 4-byte descriptor.
                #expect(raw[4] & 1 == (frame.isKeyFrame ? 0 : 1))
            }
        }
        #expect(keys == [0, 10, 20])
        for i in 1..<pictureIDs.count {
            #expect(pictureIDs[i] == (pictureIDs[i - 1] + 1) & 0x7FFF)
            #expect(timestamps[i] &- timestamps[i - 1] == 9000)
        }
        #expect(source.keyFramesProduced == 3 && source.framesProduced == 25)
    }

    @Test func requestKeyFrameMakesTheNextFrameAKeyFrame() throws {
        var source = SyntheticVP8Source(.init(fps: 30, keyFrameIntervalSeconds: 10))
        var keys: [Bool] = []
        for now: UInt64 in [0, 40_000] { keys.append(try source.nextFrame(now: now).unwrapped().isKeyFrame) }
        source.requestKeyFrame()
        for now: UInt64 in [80_000, 120_000] { keys.append(try source.nextFrame(now: now).unwrapped().isKeyFrame) }
        #expect(keys == [true, false, true, false])
    }

    @Test func averageBitrateMatchesTheConfiguration() throws {
        var source = SyntheticVP8Source(.init(fps: 30, bitrateKbps: 1000, keyFrameIntervalSeconds: 2))
        var bytes = 0
        for i in 0..<300 {  // 10 seconds
            bytes += try source.nextFrame(now: UInt64(i) * 1_000_000 / 30).unwrapped().size
        }
        let kbps = bytes * 8 / 10 / 1000
        #expect(kbps > 900 && kbps <= 1000)
    }

    @Test func aStallSkipsAheadInsteadOfBursting() throws {
        var source = SyntheticVP8Source(.init(fps: 30))
        let first = try source.nextFrame(now: 0).unwrapped()
        let afterStall = try source.nextFrame(now: 5_000_000).unwrapped()
        let burst = source.nextFrame(now: 5_000_000)
        #expect(burst == nil)
        #expect(afterStall.rtpTimestamp &- first.rtpTimestamp == 450_000)
    }

    @Test func packetThatDoesNotFitWritesNothing() throws {
        var source = SyntheticVP8Source(.init())
        let frame = try source.nextFrame(now: 0).unwrapped()
        var small = [UInt8](repeating: 0, count: 8)
        #expect(small.withUnsafeMutableBytes { frame.writePacket(0, into: $0, sendTime: 0) } == 0)
        #expect(small.withUnsafeMutableBytes { frame.writePacket(frame.packetCount, into: $0, sendTime: 0) } == 0)
    }
}
