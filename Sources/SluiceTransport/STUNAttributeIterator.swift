import SluiceWire

/// Walks the attributes of a message, bounds-checked, honouring 4-byte padding.
/// Stops at the first attribute that does not fit.
public struct STUNAttributeIterator: IteratorProtocol, Sequence {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.offset = STUNMessage.headerSize
    }

    public mutating func next() -> STUNAttribute? {
        guard offset + 4 <= bytes.count else { return nil }
        let type = bytes.loadBigEndianUInt16(at: offset)
        let length = Int(bytes.loadBigEndianUInt16(at: offset + 2))
        let valueStart = offset + 4
        guard valueStart + length <= bytes.count else { offset = bytes.count; return nil }
        let attribute = STUNAttribute(type: type,
                                      value: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueStart + length]),
                                      offset: offset)
        offset = Swift.min(bytes.count, valueStart + ((length + 3) & ~3))
        return attribute
    }
}
