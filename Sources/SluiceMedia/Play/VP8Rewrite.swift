import SluiceRTP

/// The VP8 descriptor fields one outgoing packet carries (-1: the field is absent), with the
/// source descriptor that says where they sit. The payload is copied unchanged, so the
/// source's offsets are the copy's.
struct VP8Rewrite {
    let descriptor: VP8PayloadDescriptor
    var pictureID: Int32 = -1
    var tl0PicIdx: Int16 = -1

    @inline(__always)
    func apply(to payload: UnsafeMutableRawBufferPointer) {
        if pictureID >= 0 { _ = descriptor.write(pictureID: UInt16(pictureID), into: payload) }
        if tl0PicIdx >= 0 { _ = descriptor.write(tl0PicIdx: UInt8(tl0PicIdx), into: payload) }
    }
}
