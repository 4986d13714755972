/// Per player: which source packet each outgoing sequence number carried, and the values it
/// was sent with, so a NACKed packet is rebuilt exactly from the producer's stored copy.
struct SentPacketMap {
    /// As many as the source keeps per layer (`RetransmissionBuffer.slots`): a player number
    /// older than that names a source packet that is gone from the buffer anyway.
    static let slots = 512

    /// 16 bytes (the fields in this order pack without holes): 8 KB per player.
    struct Entry: Equatable {
        var outTimestamp: UInt32
        /// VP8 descriptor values as rewritten, or -1.
        var pictureID: Int32
        var outSequence: UInt16
        var sourceSequence: UInt16
        var tl0PicIdx: Int16
        /// The source layer (bits 0-6), and in bit 7 whether the copy set the RTP marker where
        /// the source had none (`markerFlag`: it ended the player's picture).
        var layer: UInt8
        var valid: Bool
    }

    static let markerFlag: UInt8 = 0x80
    /// The `layer` of a padding-only packet (a probe's): a NACK of it is answered with
    /// padding again, or the player would keep asking and stall its frames behind the hole.
    static let paddingLayer: UInt8 = 0x7f

    private let entries = PacketRecordRing(count: slots, repeating: Entry(outTimestamp: 0, pictureID: -1, outSequence: 0,
                                                                          sourceSequence: 0, tl0PicIdx: -1, layer: 0,
                                                                          valid: false))

    @inline(__always)
    func record(_ entry: Entry) {
        entries[Int(entry.outSequence)] = entry
    }

    @inline(__always)
    func lookup(_ outSequence: UInt16) -> Entry? {
        let entry = entries[Int(outSequence)]
        return entry.valid && entry.outSequence == outSequence ? entry : nil
    }
}
