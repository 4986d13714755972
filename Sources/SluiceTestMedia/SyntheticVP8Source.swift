/// Synthetic VP8 video for tests and the load tester: frames at a set rate and bitrate with
/// the real structure a forwarder looks at (RFC 7741 payload descriptor with a 15-bit picture
/// id and the S bit; a key frame every N seconds with a valid 10-byte key-frame header carrying
/// the size; delta frames with a 3-byte frame tag), cut into packets of at most
/// `maxPayloadSize` bytes. The marker goes on a frame's last packet. Every packet carries a
/// `SendTimeProbe`. The bitstream after the headers is filler: nothing here decodes.
///
/// Use: call `nextFrame(now:)` until it returns nil, and for each frame write its packets
/// `0..<packetCount` with `writePacket`. No allocation.
public struct SyntheticVP8Source: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var width: Int
        public var height: Int
        public var fps: Int
        public var bitrateKbps: Int
        public var keyFrameIntervalSeconds: Double
        public var maxPayloadSize: Int

        public init(width: Int = 640, height: Int = 360, fps: Int = 30, bitrateKbps: Int = 800,
                    keyFrameIntervalSeconds: Double = 2, maxPayloadSize: Int = 1200) {
            self.width = width
            self.height = height
            self.fps = fps
            self.bitrateKbps = bitrateKbps
            self.keyFrameIntervalSeconds = keyFrameIntervalSeconds
            self.maxPayloadSize = maxPayloadSize
        }
    }

    public static let clockRate = 90_000
    public static let descriptorSize = 4
    public static let frameTagSize = 3
    public static let keyFrameHeaderSize = 10

    public let configuration: Configuration
    /// Frames between scheduled key frames.
    public let keyFrameInterval: Int
    public let keyFrameSize: Int
    public let deltaFrameSize: Int
    public private(set) var framesProduced: UInt64 = 0
    public private(set) var keyFramesProduced: UInt64 = 0

    private var startMicros: UInt64?
    private var frameIndex: UInt64 = 0
    private var framesSinceKeyFrame = 0
    private var keyFrameRequested = true
    private var pictureID: UInt16
    private let timestampBase: UInt32

    public init(_ configuration: Configuration) {
        let fps = max(1, configuration.fps)
        var c = configuration
        c.fps = fps
        c.width = min(max(1, c.width), 0x3FFF)
        c.height = min(max(1, c.height), 0x3FFF)
        c.maxPayloadSize = max(Self.descriptorSize + Self.keyFrameHeaderSize + SendTimeProbe.size, c.maxPayloadSize)
        self.configuration = c
        keyFrameInterval = max(1, Int((configuration.keyFrameIntervalSeconds * Double(fps)).rounded()))
        // A key frame three times a delta frame, with the average over an interval at the bitrate.
        let average = max(1, configuration.bitrateKbps) * 1000 / 8 / fps
        let delta = average * keyFrameInterval / (keyFrameInterval + 2)
        let minimum = Self.keyFrameHeaderSize + SendTimeProbe.size
        deltaFrameSize = max(minimum, delta)
        keyFrameSize = max(minimum, 3 * delta)
        pictureID = UInt16.random(in: 0...0x7FFF)
        timestampBase = UInt32.random(in: 0...UInt32.max)
    }

    /// The next frame is a key frame (a PLI or FIR arrived).
    public mutating func requestKeyFrame() {
        keyFrameRequested = true
    }

    /// The frame due at `now`, or nil when none is due. After a stall of more than a second
    /// it skips ahead instead of sending a burst.
    public mutating func nextFrame(now: UInt64) -> SyntheticVP8Frame? {
        let fps = UInt64(configuration.fps)
        let start = startMicros ?? now
        startMicros = start
        guard now >= start else { return nil }
        var due = start + frameIndex * 1_000_000 / fps
        if now >= due + 1_000_000 {
            frameIndex = (now - start) * fps / 1_000_000
            due = start + frameIndex * 1_000_000 / fps
        }
        guard now >= due else { return nil }
        let isKey = keyFrameRequested || framesSinceKeyFrame >= keyFrameInterval
        if isKey {
            keyFrameRequested = false
            framesSinceKeyFrame = 0
            keyFramesProduced += 1
        }
        framesSinceKeyFrame += 1
        let size = isKey ? keyFrameSize : deltaFrameSize
        let timestamp = timestampBase &+ UInt32(truncatingIfNeeded: frameIndex * UInt64(Self.clockRate) / fps)
        let frame = SyntheticVP8Frame(isKeyFrame: isKey, pictureID: pictureID, rtpTimestamp: timestamp, size: size,
                                      width: configuration.width, height: configuration.height,
                                      maxPayloadSize: configuration.maxPayloadSize)
        pictureID = (pictureID + 1) & 0x7FFF
        frameIndex += 1
        framesProduced += 1
        return frame
    }
}

/// One synthetic VP8 frame: `size` bytes of bitstream in `packetCount` packets.
public struct SyntheticVP8Frame: Sendable, Hashable {
    public let isKeyFrame: Bool
    public let pictureID: UInt16
    public let rtpTimestamp: UInt32
    /// Bitstream bytes (frame header, probes and filler), without payload descriptors.
    public let size: Int
    public let width: Int
    public let height: Int
    public let maxPayloadSize: Int
    public let packetCount: Int

    init(isKeyFrame: Bool, pictureID: UInt16, rtpTimestamp: UInt32, size: Int, width: Int, height: Int, maxPayloadSize: Int) {
        self.isKeyFrame = isKeyFrame
        self.pictureID = pictureID
        self.rtpTimestamp = rtpTimestamp
        self.size = size
        self.width = width
        self.height = height
        self.maxPayloadSize = maxPayloadSize
        let perPacket = maxPayloadSize - SyntheticVP8Source.descriptorSize
        packetCount = max(1, (size + perPacket - 1) / perPacket)
    }

    /// The RTP marker: set on the frame's last packet.
    public func isLastPacket(_ index: Int) -> Bool { index == packetCount - 1 }

    /// Bitstream bytes carried by packet `index`: the frame split evenly.
    public func chunkSize(_ index: Int) -> Int {
        size / packetCount + (index < size % packetCount ? 1 : 0)
    }

    /// Writes packet `index`'s RTP payload into `buffer`; returns its length, or 0 when it does
    /// not fit or `index` is out of range.
    public func writePacket(_ index: Int, into buffer: UnsafeMutableRawBufferPointer, sendTime: UInt64) -> Int {
        guard index >= 0, index < packetCount else { return 0 }
        let chunk = chunkSize(index)
        let length = SyntheticVP8Source.descriptorSize + chunk
        guard length <= buffer.count else { return 0 }
        let first = index == 0
        // X, S on the first packet, partition 0; then I; then the 15-bit picture id (M set).
        buffer[0] = 0x80 | (first ? 0x10 : 0)
        buffer[1] = 0x80
        buffer[2] = 0x80 | UInt8(truncatingIfNeeded: pictureID >> 8) & 0x7F
        buffer[3] = UInt8(truncatingIfNeeded: pictureID)
        var offset = SyntheticVP8Source.descriptorSize
        if first {
            let headerSize = isKeyFrame ? SyntheticVP8Source.keyFrameHeaderSize : SyntheticVP8Source.frameTagSize
            // Frame tag (RFC 6386 9.1): P (0 = key frame), version 0, show_frame, first_part_size.
            let partitionSize = UInt32(min(size - headerSize, 0x7FFFF))
            buffer[offset] = (isKeyFrame ? 0 : 1) | 0x10 | UInt8(truncatingIfNeeded: partitionSize << 5)
            buffer[offset + 1] = UInt8(truncatingIfNeeded: partitionSize >> 3)
            buffer[offset + 2] = UInt8(truncatingIfNeeded: partitionSize >> 11)
            if isKeyFrame {
                buffer[offset + 3] = 0x9D
                buffer[offset + 4] = 0x01
                buffer[offset + 5] = 0x2A
                buffer[offset + 6] = UInt8(truncatingIfNeeded: width)
                buffer[offset + 7] = UInt8(truncatingIfNeeded: width >> 8) & 0x3F
                buffer[offset + 8] = UInt8(truncatingIfNeeded: height)
                buffer[offset + 9] = UInt8(truncatingIfNeeded: height >> 8) & 0x3F
            }
            offset += headerSize
        }
        if SendTimeProbe.write(sendTime, into: buffer, at: offset) { offset += SendTimeProbe.size }
        if offset < length {
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<length]).initializeMemory(as: UInt8.self, repeating: 0x5A)
        }
        return length
    }
}
