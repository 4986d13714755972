/// One element of an RFC 8285 header extension block.
public struct RTPHeaderExtensionElement {
    public let id: UInt8
    /// Offsets of the value relative to the base the iterator was created with.
    public let range: Range<Int>
    public let value: UnsafeRawBufferPointer

    @inlinable
    init(id: UInt8, range: Range<Int>, value: UnsafeRawBufferPointer) {
        self.id = id
        self.range = range
        self.value = value
    }
}

/// Walks the elements of a one-byte (0xBEDE) or two-byte (0x100X) extension block without
/// allocating. A malformed element ends the walk and sets `isMalformed`; the elements before
/// it stay usable, as RFC 8285 asks of receivers.
public struct RTPHeaderExtensionIterator: IteratorProtocol, Sequence {
    @usableFromInline let base: UnsafeRawPointer
    @usableFromInline var offset: Int
    @usableFromInline let end: Int
    @usableFromInline let isTwoByte: Bool
    @usableFromInline var malformed = false

    /// True when the walk ended at an element that overruns the block.
    @inlinable public var isMalformed: Bool { malformed }

    public static let oneByteProfile: UInt16 = 0xBEDE
    public static let twoByteProfile: UInt16 = 0x1000

    @inlinable @inline(__always)
    public static func isOneByte(profile: UInt16) -> Bool { profile == oneByteProfile }

    /// The low four bits of the two-byte profile are application bits.
    @inlinable @inline(__always)
    public static func isTwoByte(profile: UInt16) -> Bool { profile & 0xfff0 == twoByteProfile }

    /// Iterates `range` of the memory at `base`; an unknown profile yields nothing.
    @inlinable
    public init(base: UnsafeRawPointer, profile: UInt16, range: Range<Int>) {
        self.base = base
        self.offset = range.lowerBound
        let known = Self.isOneByte(profile: profile) || Self.isTwoByte(profile: profile)
        self.end = known ? range.upperBound : range.lowerBound
        self.isTwoByte = Self.isTwoByte(profile: profile)
    }

    /// Iterates the element bytes of a block (after its 4-byte header); ranges are relative to `elements`.
    @inlinable
    public init(profile: UInt16, elements: UnsafeRawBufferPointer) {
        if let start = elements.baseAddress {
            self.init(base: start, profile: profile, range: 0..<elements.count)
        } else {
            self.init(base: UnsafeRawPointer(bitPattern: 1)!, profile: 0, range: 0..<0)
        }
    }

    @inlinable
    public mutating func next() -> RTPHeaderExtensionElement? {
        while offset < end {
            let first = base.load(fromByteOffset: offset, as: UInt8.self)
            if first == 0 {
                offset += 1  // padding between or after elements
                continue
            }
            let id: UInt8
            let length: Int
            let valueStart: Int
            if isTwoByte {
                guard offset + 2 <= end else { return stop() }
                id = first
                length = Int(base.load(fromByteOffset: offset + 1, as: UInt8.self))
                valueStart = offset + 2
            } else {
                id = first >> 4
                // ID 15 is reserved: the receiver stops processing the block there.
                guard id != 15 else { offset = end; return nil }
                length = Int(first & 0x0f) + 1
                valueStart = offset + 1
            }
            guard valueStart + length <= end else { return stop() }
            offset = valueStart + length
            return RTPHeaderExtensionElement(
                id: id, range: valueStart..<valueStart + length,
                value: UnsafeRawBufferPointer(start: base + valueStart, count: length))
        }
        return nil
    }

    @inlinable
    mutating func stop() -> RTPHeaderExtensionElement? {
        malformed = true
        offset = end
        return nil
    }

    /// The first element with `id`.
    @inlinable
    public func first(id: UInt8) -> RTPHeaderExtensionElement? {
        var copy = self
        while let element = copy.next() {
            if element.id == id { return element }
        }
        return nil
    }
}
