import Testing
@testable import SluiceRTP

@Test func parsesKeyFrameWithScalabilityStructure() throws {
    let payload: [UInt8] = [
        0x8e,              // I=1 P=0 L=0 F=0 B=1 E=1 V=1 Z=0
        0x80, 0x01,        // M=1, PictureID 1
        0x10,              // N_S=0 (one spatial layer), Y=1, G=0
        0x02, 0x80,        // width 640
        0x01, 0xe0,        // height 480
        0x82, 0x49,        // VP9 frame data
    ]
    let descriptor = try #require(payload.withUnsafeBytes { VP9PayloadDescriptor(parsing: $0) })
    #expect(descriptor.pictureID == 1 && descriptor.hasLongPictureID)
    #expect(descriptor.isStartOfFrame && descriptor.isEndOfFrame && descriptor.hasScalabilityStructure)
    #expect(descriptor.isKeyFrame)
    #expect(descriptor.spatialLayerCount == 1)
    #expect(descriptor.width == 640 && descriptor.height == 480)
    #expect(descriptor.length == 8)
}

@Test func parsesNonFlexibleInterFrameWithLayers() throws {
    let payload: [UInt8] = [
        0xec,              // I=1 P=1 L=1 F=0 B=1 E=1 V=0 Z=0
        0x05,              // M=0, PictureID 5
        0x43,              // TID=2 U=0 SID=1 D=1
        0x09,              // TL0PICIDX 9
    ]
    let descriptor = try #require(payload.withUnsafeBytes { VP9PayloadDescriptor(parsing: $0) })
    #expect(descriptor.pictureID == 5 && !descriptor.hasLongPictureID)
    #expect(descriptor.temporalLayerIndex == 2 && descriptor.spatialLayerIndex == 1)
    #expect(!descriptor.isSwitchingUpPoint && descriptor.hasInterLayerDependency)
    #expect(descriptor.tl0PicIdx == 9)
    #expect(!descriptor.isKeyFrame)
    #expect(descriptor.length == 4)
}

@Test func upperSpatialLayerOfKeyPictureIsNotKeyFrame() throws {
    let payload: [UInt8] = [0xa8, 0x05, 0x02, 0x00]  // I=1 P=0 L=1 B=1; SID=1; TL0PICIDX 0
    let descriptor = try #require(payload.withUnsafeBytes { VP9PayloadDescriptor(parsing: $0) })
    #expect(descriptor.spatialLayerIndex == 1)
    #expect(!descriptor.isKeyFrame)
}

@Test func parsesFlexibleModeReferences() throws {
    let payload: [UInt8] = [
        0xd8,              // I=1 P=1 L=0 F=1 B=1
        0x05,              // PictureID 5
        0x03, 0x04,        // P_DIFF 1 with N=1, P_DIFF 2 with N=0
        0xaa,
    ]
    let descriptor = try #require(payload.withUnsafeBytes { VP9PayloadDescriptor(parsing: $0) })
    #expect(descriptor.isFlexibleMode && descriptor.tl0PicIdx == nil)
    #expect(descriptor.length == 4)
}

@Test(arguments: [
    [UInt8](),
    [0x80],                          // I=1 without PictureID
    [0x20],                          // L=1 without layer byte
    [0x20, 0x00],                    // non-flexible without TL0PICIDX
    [0x50, 0x01, 0x01, 0x01],        // flexible, fourth P_DIFF announced
    [0x02, 0x30, 0x00, 0x10],        // scalability structure: sizes cut short
])
func rejectsTruncatedVP9Descriptors(bytes: [UInt8]) {
    #expect(bytes.withUnsafeBytes { VP9PayloadDescriptor(parsing: $0) } == nil)
}
