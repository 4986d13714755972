/// The active decode targets rewrite (AV1 RTP specification A.8.3.3, `active_decode_targets_bitmask`):
/// a forwarder tells each receiver which decode targets it will get, so that its decoder does
/// not wait for frames of the others (libwebrtc reads the chains that protect active targets
/// only). A descriptor is copied with the bitmask set, bit by bit, into the caller's buffer:
/// no parse, no allocation.
public enum DependencyActiveTargets {
    /// Writes `source` (a descriptor's value) into `out` with its active decode targets set to
    /// `mask` (`targets` bits, target 0 the lowest). `structureEndBit`: for a descriptor that
    /// attaches its structure, where the structure ends (`DependencyTemplateTable.structureEndBit`).
    /// A descriptor of the mandatory fields alone gets the extended fields' flags; one without
    /// the bitmask gets it inserted after the flags (or the structure), and the bits after move
    /// along; one with it has it overwritten. Returns the bytes written; nil when `source` is
    /// shorter than its fields, or `out` too small.
    public static func write(_ source: UnsafeRawBufferPointer, attachesStructure: Bool, structureEndBit: Int,
                             targets: Int, mask: UInt32, into out: UnsafeMutableRawBufferPointer) -> Int? {
        guard source.count >= 3, (1...32).contains(targets) else { return nil }
        let value = Int(targets == 32 ? mask : mask & (UInt32(1) << UInt32(targets) &- 1))
        var reader = ExpGolombReader(source)
        var writer = BitWriter(out)
        guard copy(24, from: &reader, to: &writer) else { return nil }
        guard source.count > 3 else {
            // The flags: no structure, active decode targets present, nothing custom.
            writer.write(0b01000, bits: 5)
            writer.write(value, bits: targets)
            return writer.finish()
        }
        let activePresent = source[3] & 0x40 != 0
        let at = attachesStructure ? structureEndBit : 29
        guard at >= 29, at <= source.count * 8, copy(at - 24, from: &reader, to: &writer) else { return nil }
        writer.write(value, bits: targets)
        if activePresent { guard reader.readBits(targets) != nil else { return nil } }
        guard copy(source.count * 8 - reader.bitOffset, from: &reader, to: &writer),
              let length = writer.finish() else { return nil }
        out[3] |= 0x40
        return length
    }

    private static func copy(_ count: Int, from reader: inout ExpGolombReader, to writer: inout BitWriter) -> Bool {
        var left = count
        while left > 0 {
            let chunk = min(left, 24)
            guard let bits = reader.readBits(chunk) else { return false }
            writer.write(Int(bits), bits: chunk)
            left -= chunk
        }
        return true
    }
}
