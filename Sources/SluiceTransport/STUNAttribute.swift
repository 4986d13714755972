/// One attribute, its value aliasing the message bytes.
public struct STUNAttribute {
    public let type: UInt16
    public let value: UnsafeRawBufferPointer
    /// Offset of the attribute header from the start of the message.
    public let offset: Int
}
