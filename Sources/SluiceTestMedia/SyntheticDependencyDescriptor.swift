import SluiceRTP

/// The dependency descriptor of a synthetic single-layer stream (`L1T1`: one decode target):
/// every key frame brings the structure (with the stream's size), every delta frame refers to
/// the frame before. Both forms are written once; a packet's start and end of frame and the
/// frame number are patched in place, so sending one allocates nothing.
public struct SyntheticDependencyDescriptor: Sendable {
    public static func structure(width: Int, height: Int) -> DependencyStructure {
        DependencyStructure(templateIDOffset: 0, decodeTargetCount: 1,
                            templates: [FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: [.switchPoint]),
                                        FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: [.switchPoint],
                                                                frameDiffs: [1])],
                            resolutions: [.init(width: width, height: height)])
    }

    private var keyBytes: [UInt8]
    private var deltaBytes: [UInt8]
    /// The frame number of the frame being sent.
    public private(set) var frameNumber: UInt16 = 0

    public init(width: Int, height: Int) {
        let structure = Self.structure(width: width, height: height)
        func bytes(_ descriptor: DependencyDescriptor, latest: DependencyStructure?) -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 128)
            let count = buffer.withUnsafeMutableBytes { descriptor.write(into: $0, latest: latest) } ?? 0
            return Array(buffer[..<count])
        }
        keyBytes = bytes(DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: 0,
                                              structure: structure, frame: structure.templates[0]), latest: nil)
        deltaBytes = bytes(DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 1, frameNumber: 0,
                                                frame: structure.templates[1]), latest: structure)
    }

    /// The next frame's number.
    public mutating func nextFrame() { frameNumber &+= 1 }

    /// The descriptor of one packet of the current frame, for the time of `body`.
    public mutating func withPacket<R>(keyFrame: Bool, first: Bool, last: Bool,
                                       _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let number = frameNumber
        func patched(_ bytes: inout [UInt8]) -> R {
            bytes.withUnsafeMutableBytes { raw in
                // Byte 0: start of frame, end of frame, then the template id (kept).
                raw[0] = (raw[0] & 0x3f) | (first ? 0x80 : 0) | (last ? 0x40 : 0)
                raw[1] = UInt8(number >> 8)
                raw[2] = UInt8(number & 0xff)
                return body(UnsafeRawBufferPointer(raw))
            }
        }
        return keyFrame ? patched(&keyBytes) : patched(&deltaBytes)
    }
}
