/// What the forwarder needs of one packet's dependency descriptor: the frame's layers, its
/// decode target indications and its place in the frame, as plain values. Read once where the
/// packet arrives, against the stream's `DependencyTemplateTable`, without allocating; carried
/// with the packet to every player, and across workers.
public struct DependencyFrame: Equatable, Sendable {
    public var spatialID: UInt8 = 0
    public var temporalID: UInt8 = 0
    public var startOfFrame = false
    public var endOfFrame = false
    /// The packet brings the structure: the first packet of a key frame.
    public var attachesStructure = false
    public var frameNumber: UInt16 = 0
    /// The frame's decode target indications, 2 bits per target, target 0 lowest.
    public var indications: UInt64 = 0
    /// Where the descriptor's value sits in its packet, so that a copy of the packet finds it
    /// without the extension id.
    public var offset: UInt16 = 0
    public var length: UInt8 = 0
    /// The structure it was read against (`DependencyTemplateTable.generation`).
    public var generation: UInt32 = 0

    public init() {}

    @inline(__always)
    public func indication(target: Int) -> DecodeTargetIndication {
        guard target >= 0 && target < 32 else { return .notPresent }
        return DecodeTargetIndication(rawValue: UInt8(truncatingIfNeeded: indications >> UInt64(2 * target)) & 3)!
    }

    /// The descriptor's bytes in `packet` (the buffer it was read from, or a copy of it).
    @inline(__always)
    public func bytes(in packet: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let end = Int(offset) + Int(length)
        guard length >= 3, end <= packet.count else { return nil }
        return UnsafeRawBufferPointer(rebasing: packet[Int(offset)..<end])
    }

    /// Reads `bytes` (the extension's value, at `offset` in its packet) against `table`, which
    /// a structure the packet brings replaces. Nil when the descriptor is malformed, or names a
    /// template no structure gave.
    @inline(__always)
    public static func read(_ bytes: UnsafeRawBufferPointer, offset: Int,
                            table: inout DependencyTemplateTable) -> DependencyFrame? {
        guard bytes.count >= 3, bytes.count <= 255, offset >= 0, offset <= Int(UInt16.max) else { return nil }
        var frame = DependencyFrame()
        let first = bytes[0]
        frame.startOfFrame = first & 0x80 != 0
        frame.endOfFrame = first & 0x40 != 0
        frame.frameNumber = UInt16(bytes[1]) << 8 | UInt16(bytes[2])
        frame.offset = UInt16(offset)
        frame.length = UInt8(bytes.count)
        var activePresent = false
        var customDTIs = false
        var customIndications: UInt64?
        if bytes.count > 3 {
            let flags = bytes[3]
            activePresent = flags & 0x40 != 0
            customDTIs = flags & 0x20 != 0
            if flags & 0x80 != 0 {
                frame.attachesStructure = true
                let tail = UnsafeRawBufferPointer(rebasing: bytes[3...])
                if customDTIs || !table.matches(tail: tail) {
                    // A new structure (or one with the frame's own indications): the full parse,
                    // which allocates, once per key frame that changes something.
                    guard let customs = loadStructure(bytes, tail: tail, table: &table) else { return nil }
                    if customDTIs { customIndications = customs }
                }
            }
        }
        guard let index = table.templateIndex(id: Int(first & 0x3f)) else { return nil }
        frame.generation = table.generation
        frame.spatialID = table.spatialID(template: index)
        frame.temporalID = table.temporalID(template: index)
        frame.indications = customIndications ?? table.indications(template: index)
        if customDTIs && !frame.attachesStructure {
            // After the mandatory fields, the five flags and the active decode targets.
            let targets = table.decodeTargetCount
            var reader = ExpGolombReader(bytes)
            guard reader.readBits(29) != nil, !activePresent || reader.readBits(targets) != nil else { return nil }
            var packed: UInt64 = 0
            for target in 0..<targets {
                guard let dti = reader.readBits(2) else { return nil }
                packed |= UInt64(dti) << UInt64(2 * target)
            }
            frame.indications = packed
        }
        return frame
    }

    /// Parses the structure `bytes` brings into `table`; returns the frame's own indications
    /// (packed) when it gives them, else the template's; nil when it does not parse or fit.
    @inline(never)
    private static func loadStructure(_ bytes: UnsafeRawBufferPointer, tail: UnsafeRawBufferPointer,
                                      table: inout DependencyTemplateTable) -> UInt64? {
        guard let parsed = try? DependencyDescriptor(parsing: bytes, latest: nil), let structure = parsed.structure,
              table.load(structure, tail: tail, structureEndBit: parsed.activeTargetsBit) else { return nil }
        var packed: UInt64 = 0
        for (target, dti) in parsed.dtis.enumerated() { packed |= UInt64(dti.rawValue) << UInt64(2 * target) }
        return packed
    }
}

