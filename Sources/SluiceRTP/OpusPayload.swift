/// The TOC byte of an Opus packet (RFC 6716 section 3.1).
public struct OpusPayload: Equatable, Sendable {
    /// Mode, bandwidth and frame size, 0...31.
    public let configuration: UInt8
    public let isStereo: Bool
    /// Frames per packet: 0 one, 1 two equal, 2 two different, 3 arbitrary.
    public let frameCountCode: UInt8
    public let length: Int

    public init?(parsing payload: UnsafeRawBufferPointer) {
        guard let toc = payload.first else { return nil }
        configuration = toc >> 3
        isStereo = toc & 0x04 != 0
        frameCountCode = toc & 0x03
        length = payload.count
    }

    /// libopus in DTX sends packets of at most 2 bytes (TOC and nothing, or a tiny frame)
    /// during silence; forwarding them keeps the receiver's comfort noise going.
    public var isDTX: Bool { length <= 2 }
}
