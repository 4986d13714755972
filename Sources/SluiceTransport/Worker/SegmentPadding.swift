/// Evens out the datagrams a transport sends in one batch, so that UDP GSO can carry them
/// together (`segmented_send.c`): the kernel takes a run of equal-length datagrams, of which
/// only the last may be shorter. A frame's packets differ by a byte or so (an encoder splits a
/// frame about evenly, longer ones first), and one shorter packet in the middle ends the run,
/// which halves what GSO saves. So an RTP packet a few bytes shorter than the datagram queued
/// just before it to the same player is padded up to it with RTP padding (RFC 3550 5.1),
/// which every receiver strips.
struct SegmentPadding {
    /// At most this many padding bytes per packet: a 1.3% cost on a 1,200-byte packet, only
    /// where the packet joins a GSO run.
    static let maxBytes = 16

    /// The worker's flush count when the last RTP datagram was queued.
    private var batch: UInt64 = .max
    private var lastWireLength = 0
    /// What SRTP adds (the auth tag), learned from the first packet protected; -1 until then.
    private var srtpOverhead = -1

    /// How many padding bytes a plain RTP packet of `length` bytes (its first byte `first`)
    /// should get in flush `batch`: 0 for none.
    @inline(__always)
    func padding(length: Int, first: UInt8, batch: UInt64) -> Int {
        guard batch == self.batch, srtpOverhead >= 0, first & 0x20 == 0 else { return 0 }
        let shortBy = lastWireLength - (length + srtpOverhead)
        return shortBy > 0 && shortBy <= Self.maxBytes ? shortBy : 0
    }

    @inline(__always)
    mutating func queued(plainLength: Int, wireLength: Int, batch: UInt64) {
        self.batch = batch
        lastWireLength = wireLength
        srtpOverhead = wireLength - plainLength
    }

    /// Appends `count` bytes of RTP padding to the packet at `packet` (`length` bytes) and sets
    /// its P bit; returns the new length. The caller checked that it fits.
    @inline(__always)
    static func pad(_ packet: UnsafeMutableRawPointer, length: Int, count: Int) -> Int {
        packet.storeBytes(of: packet.load(as: UInt8.self) | 0x20, as: UInt8.self)
        (packet + length).initializeMemory(as: UInt8.self, repeating: 0, count: count - 1)
        packet.storeBytes(of: UInt8(count), toByteOffset: length + count - 1, as: UInt8.self)
        return length + count
    }
}
