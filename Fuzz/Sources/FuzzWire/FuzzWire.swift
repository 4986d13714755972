import SluiceWire

/// Reads arbitrary bytes with every ByteReader call; must never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    var reader = ByteReader(raw)
    var unwrapper = SequenceUnwrapper()
    while let v = reader.readUInt16() {
        _ = unwrapper.unwrap(v)
        _ = reader.readBytes(Int(v & 0x7))
    }
    return 0
}
