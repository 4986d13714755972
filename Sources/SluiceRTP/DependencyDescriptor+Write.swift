/// Writing a Dependency Descriptor: the same syntax as it is read (A.8.2), into a caller's
/// buffer, so a forwarder can give each player its own active decode targets and frame
/// numbers without allocating.
extension DependencyDescriptor {
    /// Writes the descriptor against `latest` (the structure in force when it attaches none);
    /// returns the bytes written, or nil when it does not fit `buffer` or does not agree with
    /// the structure (a template id it lacks, indications for another count of targets).
    public func write(into buffer: UnsafeMutableRawBufferPointer, latest: DependencyStructure?) -> Int? {
        guard let known = structure ?? latest, known.template(id: templateID) != nil,
              (0...63).contains(templateID), structure?.isWritable ?? true else { return nil }
        let targets = known.decodeTargetCount
        let allTargets = UInt32(truncatingIfNeeded: (UInt64(1) << targets) - 1)
        let writesActive = activeDecodeTargets.map { structure == nil || $0 != allTargets } ?? false
        let extended = structure != nil || writesActive || customDTIs || customFrameDiffs || customChains
        var writer = BitWriter(buffer)
        writer.write(startOfFrame ? 1 : 0, bits: 1)
        writer.write(endOfFrame ? 1 : 0, bits: 1)
        writer.write(templateID, bits: 6)
        writer.write(Int(frameNumber), bits: 16)
        if extended {
            writer.write(structure != nil ? 1 : 0, bits: 1)
            writer.write(writesActive ? 1 : 0, bits: 1)
            writer.write(customDTIs ? 1 : 0, bits: 1)
            writer.write(customFrameDiffs ? 1 : 0, bits: 1)
            writer.write(customChains ? 1 : 0, bits: 1)
            if let structure { Self.writeStructure(structure, into: &writer) }
            if writesActive, let active = activeDecodeTargets {
                guard active >> targets == 0 || targets == 32 else { return nil }
                writer.write(Int(active), bits: targets)
            }
        }
        if customDTIs {
            guard dtis.count == targets else { return nil }
            for dti in dtis { writer.write(Int(dti.rawValue), bits: 2) }
        }
        if customFrameDiffs {
            for diff in frameDiffs {
                guard (1...4096).contains(diff) else { return nil }
                let size = diff - 1 < 16 ? 1 : diff - 1 < 256 ? 2 : 3
                writer.write(size, bits: 2)
                writer.write(diff - 1, bits: 4 * size)
            }
            writer.write(0, bits: 2)
        }
        if customChains {
            guard chainDiffs.count == known.chainCount, chainDiffs.allSatisfy({ (0...255).contains($0) }) else { return nil }
            for diff in chainDiffs { writer.write(diff, bits: 8) }
        }
        return writer.finish()
    }

    private static func writeStructure(_ structure: DependencyStructure, into writer: inout BitWriter) {
        writer.write(structure.templateIDOffset, bits: 6)
        writer.write(structure.decodeTargetCount - 1, bits: 5)
        let templates = structure.templates
        for index in templates.indices {
            guard index + 1 < templates.count else {
                writer.write(3, bits: 2)
                break
            }
            let next = templates[index + 1]
            writer.write(next.spatialID > templates[index].spatialID ? 2
                         : next.temporalID > templates[index].temporalID ? 1 : 0, bits: 2)
        }
        for template in templates {
            for dti in template.dtis { writer.write(Int(dti.rawValue), bits: 2) }
        }
        for template in templates {
            for diff in template.frameDiffs {
                writer.write(1, bits: 1)
                writer.write(diff - 1, bits: 4)
            }
            writer.write(0, bits: 1)
        }
        writer.writeNonSymmetric(structure.chainCount, n: structure.decodeTargetCount + 1)
        if structure.chainCount > 0 {
            for chain in structure.decodeTargetProtectedBy { writer.writeNonSymmetric(chain, n: structure.chainCount) }
            for template in templates {
                for diff in template.chainDiffs { writer.write(diff, bits: 4) }
            }
        }
        writer.write(structure.resolutions.isEmpty ? 0 : 1, bits: 1)
        for resolution in structure.resolutions {
            writer.write(resolution.width - 1, bits: 16)
            writer.write(resolution.height - 1, bits: 16)
        }
    }
}

/// Bits MSB first into a caller's buffer; the last byte is padded with zeros. Overflow is
/// remembered, not trapped on.
struct BitWriter {
    private let buffer: UnsafeMutableRawBufferPointer
    private var bitOffset = 0
    private var overflowed = false

    init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    mutating func write(_ value: Int, bits count: Int) {
        guard count > 0 else { return }
        guard bitOffset + count <= buffer.count * 8 else {
            overflowed = true
            return
        }
        for shift in stride(from: count - 1, through: 0, by: -1) {
            let byte = bitOffset >> 3
            let mask = UInt8(0x80) >> UInt8(bitOffset & 7)
            if bitOffset & 7 == 0 { buffer[byte] = 0 }
            if (value >> shift) & 1 == 1 { buffer[byte] |= mask }
            bitOffset += 1
        }
    }

    /// ns(n) (A.8.2, as AV1's ns): `value` in 0..<n with one bit fewer for the small values.
    mutating func writeNonSymmetric(_ value: Int, n: Int) {
        var width = 0
        var x = n
        while x != 0 { x >>= 1; width += 1 }
        let m = (1 << width) - n
        if value < m {
            write(value, bits: width - 1)
        } else {
            write((value + m) >> 1, bits: width - 1)
            write((value + m) & 1, bits: 1)
        }
    }

    /// The bytes written (the partial last one included), or nil after an overflow.
    func finish() -> Int? {
        overflowed ? nil : (bitOffset + 7) >> 3
    }
}
