import SluiceRTP

/// The dependency descriptor of a synthetic single-layer stream in three temporal layers
/// (`L1T3`, as libwebrtc's: T0 every 4th frame, T1 between, T2 the rest; three decode
/// targets): every key frame brings the structure (with the stream's size). Each form is
/// written once; a packet's start and end of frame and the frame number are patched in place,
/// so sending one allocates nothing. The VP8 payload says nothing of temporal layers: a server
/// that negotiated the descriptor reads them from it.
public struct SyntheticDependencyDescriptor: Sendable {
    public static func structure(width: Int, height: Int) -> DependencyStructure {
        func dtis(_ text: String) -> [DecodeTargetIndication] {
            text.map { ["-": DecodeTargetIndication.notPresent, "D": .discardable, "S": .switchPoint][$0]! }
        }
        return DependencyStructure(
            templateIDOffset: 0, decodeTargetCount: 3,
            templates: [FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: dtis("SSS")),
                        FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: dtis("SSS"), frameDiffs: [4]),
                        FrameDependencyTemplate(spatialID: 0, temporalID: 1, dtis: dtis("-DS"), frameDiffs: [2]),
                        FrameDependencyTemplate(spatialID: 0, temporalID: 2, dtis: dtis("--D"), frameDiffs: [1])],
            resolutions: [.init(width: width, height: height)])
    }

    /// By template: the key frame's (with the structure), T0's, T1's, T2's.
    private var forms: [[UInt8]]
    /// The frame number of the frame being sent.
    public private(set) var frameNumber: UInt16 = 0
    /// Frames since the last key frame, for the temporal pattern.
    private var sinceKey = 0
    private var template = 0

    public init(width: Int, height: Int) {
        let structure = Self.structure(width: width, height: height)
        func bytes(_ template: Int) -> [UInt8] {
            let descriptor = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: template, frameNumber: 0,
                                                  structure: template == 0 ? structure : nil,
                                                  frame: structure.templates[template])
            var buffer = [UInt8](repeating: 0, count: 128)
            let count = buffer.withUnsafeMutableBytes { descriptor.write(into: $0, latest: structure) } ?? 0
            return Array(buffer[..<count])
        }
        forms = (0..<4).map(bytes)
    }

    /// On to the next frame: its number, and its template (a key frame restarts the pattern).
    public mutating func nextFrame(keyFrame: Bool) {
        frameNumber &+= 1
        sinceKey = keyFrame ? 0 : sinceKey + 1
        template = keyFrame ? 0 : sinceKey % 4 == 0 ? 1 : sinceKey % 2 == 0 ? 2 : 3
    }

    /// The descriptor of one packet of the current frame, for the time of `body`.
    public mutating func withPacket<R>(first: Bool, last: Bool, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let number = frameNumber
        return forms[template].withUnsafeMutableBytes { raw in
            // Byte 0: start of frame, end of frame, then the template id (kept).
            raw[0] = (raw[0] & 0x3f) | (first ? 0x80 : 0) | (last ? 0x40 : 0)
            raw[1] = UInt8(number >> 8)
            raw[2] = UInt8(number & 0xff)
            return body(UnsafeRawBufferPointer(raw))
        }
    }
}
