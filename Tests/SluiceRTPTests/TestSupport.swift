import SluiceRTP
import SluiceWire

/// Serializes through a ByteWriter of exactly `size` bytes; nil if the writer overflowed.
func serialize(size: Int, _ write: (inout ByteWriter) -> Void) -> [UInt8]? {
    var storage = [UInt8](repeating: 0xee, count: size)
    let ok = storage.withUnsafeMutableBytes { raw -> Bool in
        var writer = ByteWriter(raw)
        write(&writer)
        return !writer.overflowed && writer.offset == size
    }
    return ok ? storage : nil
}

/// Runs `body` on a mutable copy of `bytes` and returns the bytes afterwards.
func mutating(_ bytes: [UInt8], _ body: (UnsafeMutableRawBufferPointer) -> Void) -> [UInt8] {
    var copy = bytes
    copy.withUnsafeMutableBytes { body($0) }
    return copy
}
