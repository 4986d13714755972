/// Opus-sized synthetic audio: one packet every 20 ms (50 per second) of `packetSize` bytes,
/// a real TOC byte (CELT fullband, 20 ms, mono, one frame), a `SendTimeProbe`, then filler.
public struct SyntheticOpusSource: Sendable {
    public static let clockRate = 48_000
    public static let packetMicros: UInt64 = 20_000
    static let samplesPerPacket: UInt32 = 960
    /// Config 31 (CELT FB 20 ms), mono, code 0.
    static let tocByte: UInt8 = 31 << 3

    public let packetSize: Int
    public private(set) var packetsProduced: UInt64 = 0

    private var startMicros: UInt64?
    private var packetIndex: UInt64 = 0
    private let timestampBase: UInt32

    public init(packetSize: Int = 100) {
        self.packetSize = max(1 + SendTimeProbe.size, packetSize)
        timestampBase = UInt32.random(in: 0...UInt32.max)
    }

    /// The RTP timestamp of the packet due at `now`, or nil when none is due. Skips ahead after a stall.
    public mutating func nextPacket(now: UInt64) -> UInt32? {
        let start = startMicros ?? now
        startMicros = start
        guard now >= start else { return nil }
        var due = start + packetIndex * Self.packetMicros
        if now >= due + 1_000_000 {
            packetIndex = (now - start) / Self.packetMicros
            due = start + packetIndex * Self.packetMicros
        }
        guard now >= due else { return nil }
        let timestamp = timestampBase &+ UInt32(truncatingIfNeeded: packetIndex) &* Self.samplesPerPacket
        packetIndex += 1
        packetsProduced += 1
        return timestamp
    }

    /// Writes one packet's payload as Opus in RED (RFC 2198), as Chromium sends it: one
    /// redundant block (the previous packet's audio, 960 samples older: here the same synthetic
    /// bytes) and the primary, both under `opusPayloadType`. Returns its length, or 0.
    public func writeREDPacket(into buffer: UnsafeMutableRawBufferPointer, sendTime: UInt64, opusPayloadType: UInt8) -> Int {
        let headers = 5
        guard headers + 2 * packetSize <= buffer.count, packetSize <= 0x3ff else { return 0 }
        buffer[0] = 0x80 | opusPayloadType & 0x7f
        let offsetAndLength = UInt32(Self.samplesPerPacket) << 10 | UInt32(packetSize)
        buffer[1] = UInt8(truncatingIfNeeded: offsetAndLength >> 16)
        buffer[2] = UInt8(truncatingIfNeeded: offsetAndLength >> 8)
        buffer[3] = UInt8(truncatingIfNeeded: offsetAndLength)
        buffer[4] = opusPayloadType & 0x7f
        for block in 0..<2 {
            let start = headers + block * packetSize
            _ = writePacket(into: UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + packetSize]), sendTime: sendTime)
        }
        return headers + 2 * packetSize
    }

    /// Writes one packet's payload; returns its length, or 0 when it does not fit.
    public func writePacket(into buffer: UnsafeMutableRawBufferPointer, sendTime: UInt64) -> Int {
        guard packetSize <= buffer.count else { return 0 }
        buffer[0] = Self.tocByte
        SendTimeProbe.write(sendTime, into: buffer, at: 1)
        let filled = 1 + SendTimeProbe.size
        if filled < packetSize {
            UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<packetSize]).initializeMemory(as: UInt8.self, repeating: 0xA5)
        }
        return packetSize
    }
}
