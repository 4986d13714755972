/// Per player: which source packet each outgoing sequence number carried, and the values it
/// was sent with, so a NACKed packet is rebuilt exactly from the producer's stored copy.
struct SentPacketMap {
    static let slots = 1024

    struct Entry: Equatable {
        var outSequence: UInt16
        var layer: UInt8
        var sourceSequence: UInt16
        var outTimestamp: UInt32
        /// VP8 descriptor values as rewritten, or -1.
        var pictureID: Int32
        var tl0PicIdx: Int16
        var valid: Bool
    }

    private var entries = [Entry](repeating: Entry(outSequence: 0, layer: 0, sourceSequence: 0, outTimestamp: 0,
                                                   pictureID: -1, tl0PicIdx: -1, valid: false), count: slots)

    @inline(__always)
    mutating func record(_ entry: Entry) {
        entries[Int(entry.outSequence) & (Self.slots - 1)] = entry
    }

    @inline(__always)
    func lookup(_ outSequence: UInt16) -> Entry? {
        let entry = entries[Int(outSequence) & (Self.slots - 1)]
        return entry.valid && entry.outSequence == outSequence ? entry : nil
    }
}
