/// Where a sender's header extensions go, element by element: an `RTPHeaderExtensionList`
/// (either form, written later) or an `RTPOneByteExtensionBlock` (written straight into the
/// packet). A sender enumerates its elements once, generically, for both.
public protocol RTPHeaderExtensionSink {
    /// False (and nothing added) when the element cannot go in.
    @discardableResult mutating func append(id: UInt8, uint8 value: UInt8) -> Bool
    @discardableResult mutating func append(id: UInt8, uint16 value: UInt16) -> Bool
    /// The low 24 bits of `value` (abs-send-time).
    @discardableResult mutating func append(id: UInt8, uint24 value: UInt32) -> Bool
    @discardableResult mutating func append(id: UInt8, value: UnsafeRawBufferPointer) -> Bool
}

extension RTPHeaderExtensionList: RTPHeaderExtensionSink {}
