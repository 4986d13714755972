import SluiceWire

/// The two element encodings of RFC 8285.
public enum RTPHeaderExtensionForm: Sendable, Equatable {
    case oneByte
    case twoByte

    public var profile: UInt16 {
        self == .oneByte ? RTPHeaderExtensionIterator.oneByteProfile : RTPHeaderExtensionIterator.twoByteProfile
    }

    /// One-byte elements carry ids 1...14 and values of 1...16 bytes.
    @inlinable @inline(__always)
    public static func fitsOneByte(id: UInt8, length: Int) -> Bool {
        id >= 1 && id <= 14 && length >= 1 && length <= 16
    }

    @inlinable @inline(__always)
    public static func fitsTwoByte(id: UInt8, length: Int) -> Bool {
        id >= 1 && length >= 0 && length <= 255
    }
}

/// A small, fixed-capacity list of (id, value) pairs to write as a fresh extension block.
/// Values live inline in the struct, so building one per outgoing packet costs no allocation.
/// The block uses the one-byte form when every element fits it, else the two-byte form.
public struct RTPHeaderExtensionList {
    /// Bytes available for elements, at two bytes of bookkeeping (id, length) per element.
    public static let storageCapacity = 128

    // Elements as (id, length, value...) records; a tuple keeps the storage inline.
    @usableFromInline var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    @usableFromInline var used = 0
    public private(set) var count = 0
    @usableFromInline var requiresTwoByte = false

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public var form: RTPHeaderExtensionForm { requiresTwoByte ? .twoByte : .oneByte }

    /// False (and nothing added) when the id or length cannot be encoded or the list is full.
    @discardableResult
    public mutating func append(id: UInt8, value: UnsafeRawBufferPointer) -> Bool {
        let length = value.count
        guard RTPHeaderExtensionForm.fitsTwoByte(id: id, length: length),
              used + 2 + length <= Self.storageCapacity else { return false }
        let start = used
        withUnsafeMutableBytes(of: &storage) { raw in
            raw[start] = id
            raw[start + 1] = UInt8(length)
            if length > 0, let source = value.baseAddress {
                (raw.baseAddress! + start + 2).copyMemory(from: source, byteCount: length)
            }
        }
        used += 2 + length
        count += 1
        if !RTPHeaderExtensionForm.fitsOneByte(id: id, length: length) { requiresTwoByte = true }
        return true
    }

    @discardableResult
    public mutating func append(id: UInt8, uint8 value: UInt8) -> Bool {
        withUnsafeBytes(of: value) { append(id: id, value: $0) }
    }

    @discardableResult
    public mutating func append(id: UInt8, uint16 value: UInt16) -> Bool {
        withUnsafeBytes(of: value.bigEndian) { append(id: id, value: $0) }
    }

    /// The low 24 bits of `value`, big-endian (abs-send-time).
    @discardableResult
    public mutating func append(id: UInt8, uint24 value: UInt32) -> Bool {
        withUnsafeBytes(of: value.bigEndian) { append(id: id, value: UnsafeRawBufferPointer(rebasing: $0[1...])) }
    }

    /// Walks the stored elements in insertion order.
    public func forEach(_ body: (UInt8, UnsafeRawBufferPointer) -> Void) {
        withUnsafeBytes(of: storage) { raw in
            var offset = 0
            while offset < used {
                let length = Int(raw[offset + 1])
                body(raw[offset], UnsafeRawBufferPointer(rebasing: raw[offset + 2..<offset + 2 + length]))
                offset += 2 + length
            }
        }
    }

    /// Bytes of the element data alone, before padding.
    var elementsLength: Int {
        used - (requiresTwoByte ? 0 : count)  // one-byte form packs id and length into one byte
    }

    /// The whole block: 4-byte header, elements, zero padding to a 32-bit boundary.
    public var serializedSize: Int {
        isEmpty ? 0 : 4 + (elementsLength + 3) & ~3
    }

    /// Writes the block (nothing when empty).
    public func write(into writer: inout ByteWriter) {
        guard !isEmpty else { return }
        let padded = (elementsLength + 3) & ~3
        writer.write(form.profile)
        writer.write(UInt16(padded / 4))
        let twoByte = requiresTwoByte
        forEach { id, value in
            if twoByte {
                writer.write(id)
                writer.write(UInt8(value.count))
            } else {
                writer.write(id << 4 | UInt8(value.count - 1))
            }
            writer.write(bytes: value)
        }
        writer.write(zeros: padded - elementsLength)
    }
}
