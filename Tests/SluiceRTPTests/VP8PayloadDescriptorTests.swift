import Testing
@testable import SluiceRTP

/// First packet of a 640x480 key frame with a 7-bit PictureID (RFC 7741 section 4.2).
let vp8KeyFramePayload: [UInt8] = [
    0x90,              // X=1 R=0 N=0 S=1 R=0 PID=0
    0x80,              // I=1 L=0 T=0 K=0
    0x11,              // M=0, PictureID 17
    0x50, 0x42, 0x00,  // VP8 frame tag: P=0 (key frame), version 0, show_frame=1, partition size
    0x9d, 0x01, 0x2a,  // key frame start code
    0x80, 0x02,        // width 640, scale 0 (little-endian, 14 bits)
    0xe0, 0x01,        // height 480, scale 0
    0x00, 0x00,        // start of the first partition
]

/// An inter frame with every extension field and a 15-bit PictureID.
let vp8InterFramePayload: [UInt8] = [
    0xb0,              // X=1 N=1 S=1 PID=0
    0xf0,              // I=1 L=1 T=1 K=1
    0x81, 0x23,        // M=1, PictureID 0x0123
    0x05,              // TL0PICIDX 5
    0x63,              // TID=1 Y=1 KEYIDX=3
    0x01, 0x00, 0x00,  // frame tag: P=1 (inter frame)
]

@Test func parsesKeyFrameWithShortPictureID() throws {
    let descriptor = try #require(vp8KeyFramePayload.withUnsafeBytes { VP8PayloadDescriptor(parsing: $0) })
    #expect(descriptor.isExtended && descriptor.isStartOfPartition && !descriptor.isNonReference)
    #expect(descriptor.partitionIndex == 0)
    #expect(descriptor.pictureID == 17 && !descriptor.hasLongPictureID)
    #expect(descriptor.tl0PicIdx == nil && descriptor.temporalLayerIndex == nil && descriptor.keyIndex == nil)
    #expect(descriptor.length == 3)
    #expect(descriptor.isKeyFrame)
    let size = vp8KeyFramePayload.withUnsafeBytes { descriptor.keyFrameSize(in: $0) }
    #expect(size?.width == 640 && size?.height == 480)
}

@Test func parsesInterFrameWithAllFields() throws {
    let descriptor = try #require(vp8InterFramePayload.withUnsafeBytes { VP8PayloadDescriptor(parsing: $0) })
    #expect(descriptor.isNonReference)
    #expect(descriptor.pictureID == 0x0123 && descriptor.hasLongPictureID)
    #expect(descriptor.tl0PicIdx == 5)
    #expect(descriptor.temporalLayerIndex == 1 && descriptor.isLayerSync)
    #expect(descriptor.keyIndex == 3)
    #expect(descriptor.length == 6)
    #expect(!descriptor.isKeyFrame)
    #expect(vp8InterFramePayload.withUnsafeBytes { descriptor.keyFrameSize(in: $0) } == nil)
}

@Test func minimalDescriptorAndScaledKeyFrame() throws {
    // No extension: one byte, then a key frame tag whose width carries scale bits.
    let payload: [UInt8] = [0x10, 0x00, 0x00, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x41, 0xb4, 0x80]
    let descriptor = try #require(payload.withUnsafeBytes { VP8PayloadDescriptor(parsing: $0) })
    #expect(descriptor.length == 1 && descriptor.pictureID == nil)
    let size = payload.withUnsafeBytes { descriptor.keyFrameSize(in: $0) }
    #expect(size?.width == 0x0140 && size?.height == 0x00b4)  // 320x180, scale bits dropped
}

@Test(arguments: [
    [UInt8](),
    [0x80],                    // X=1, no extension byte
    [0x80, 0x80],              // I=1, no PictureID
    [0x80, 0x80, 0x80],        // M=1, 15-bit PictureID cut short
    [0x80, 0x40],              // L=1, no TL0PICIDX
    [0x80, 0x20],              // T=1, no TID byte
])
func rejectsTruncatedDescriptors(bytes: [UInt8]) {
    #expect(bytes.withUnsafeBytes { VP8PayloadDescriptor(parsing: $0) } == nil)
}

@Test func rewritesPictureIDAndTL0PicIdxInPlace() throws {
    let long = try #require(vp8InterFramePayload.withUnsafeBytes { VP8PayloadDescriptor(parsing: $0) })
    let rewritten = mutating(vp8InterFramePayload) { raw in
        #expect(long.write(pictureID: 0xfffe, into: raw))  // 15 bits kept: 0x7ffe
        #expect(long.write(tl0PicIdx: 200, into: raw))
    }
    #expect(rewritten[2...4] == [0xff, 0xfe, 200])
    let reparsed = rewritten.withUnsafeBytes { VP8PayloadDescriptor(parsing: $0) }
    #expect(reparsed?.pictureID == 0x7ffe && reparsed?.tl0PicIdx == 200)

    let short = try #require(vp8KeyFramePayload.withUnsafeBytes { VP8PayloadDescriptor(parsing: $0) })
    let shortRewritten = mutating(vp8KeyFramePayload) { raw in
        #expect(short.write(pictureID: 0x0185, into: raw))  // 7 bits kept: 0x05
        #expect(!short.write(tl0PicIdx: 1, into: raw))      // no TL0PICIDX to rewrite
    }
    #expect(shortRewritten[2] == 0x05)
    #expect(shortRewritten[3...] == vp8KeyFramePayload[3...])
}
