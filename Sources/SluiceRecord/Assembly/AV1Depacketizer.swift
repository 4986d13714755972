import SluiceRTP

/// The AV1 RTP payload (AV1 RTP specification section 4): OBU elements, the first of a packet
/// continuing the previous packet's last OBU when Z is set, the last continuing into the next
/// when Y is set. The frame is rewritten in the low overhead bitstream format (section 5.2 of
/// the AV1 specification) that WebM and MP4 store: every OBU with obu_has_size_field = 1 and a
/// LEB128 obu_size, temporal delimiters dropped (the container's block boundary replaces them).
public struct AV1Depacketizer: FrameDepacketizer {
    /// The latest sequence header OBU, in the same low overhead form: what a Matroska
    /// CodecPrivate (av1C) carries after its 4 fixed bytes.
    public private(set) var sequenceHeaderOBU: [UInt8]?
    /// max_frame_width/height of the latest sequence header that parsed.
    public private(set) var width: Int?
    public private(set) var height: Int?

    public init() {}

    public var codec: RecordedCodec { .av1 }

    public mutating func depacketize(_ packets: [RecordedPacket]) -> DepacketizedFrame? {
        var obus: [[UInt8]] = []
        var fragment: [UInt8]?
        var startsSequence = false
        for (index, packet) in packets.enumerated() {
            guard let header = packet.payload.withUnsafeBytes({ AV1AggregationHeader(parsing: $0) }) else { return nil }
            if index == 0 {
                guard !header.continuesFragment else { return nil }  // the frame's start is lost
                startsSequence = header.startsCodedVideoSequence
            }
            guard let elements = Self.elements(packet.payload) else { return nil }
            for (position, element) in elements.enumerated() {
                if position == 0 && header.continuesFragment {
                    guard fragment != nil else { return nil }
                    fragment!.append(contentsOf: element)
                } else {
                    // A new OBU begins while the previous packet promised a continuation: damaged.
                    guard fragment == nil else { return nil }
                    fragment = element
                }
                if !(position == elements.count - 1 && header.fragmentContinues) {
                    obus.append(fragment!)
                    fragment = nil
                }
            }
            // Y set on a packet with no element, or Z set on one with none, leaves the state as is.
        }
        guard fragment == nil else { return nil }

        var data: [UInt8] = []
        var hasSequenceHeader = false
        var hasKeyFrameHeader = false
        for obu in obus {
            guard let rewritten = Self.lowOverhead(obu) else { return nil }
            switch rewritten.type {
            case AV1OBUHeader.OBUType.temporalDelimiter:
                continue
            case AV1OBUHeader.OBUType.sequenceHeader:
                hasSequenceHeader = true
                sequenceHeaderOBU = rewritten.bytes
                if let parsed = rewritten.payload.withUnsafeBytes({ AV1SequenceHeader(parsing: $0) }) {
                    width = parsed.maxFrameWidth
                    height = parsed.maxFrameHeight
                }
            case AV1OBUHeader.OBUType.frameHeader, AV1OBUHeader.OBUType.frame:
                // uncompressed_header(): show_existing_frame (1 bit), then frame_type (2 bits),
                // KEY_FRAME = 0. A reduced still picture header has neither; Sluice sees none.
                if let first = rewritten.payload.first, first & 0x80 == 0, first >> 5 & 0x03 == 0 {
                    hasKeyFrameHeader = true
                }
            default:
                break
            }
            data.append(contentsOf: rewritten.bytes)
        }
        guard !data.isEmpty else { return nil }
        let isKeyFrame = startsSequence || (hasSequenceHeader && hasKeyFrameHeader)
        return DepacketizedFrame(data: data, isKeyFrame: isKeyFrame,
                                 width: isKeyFrame ? width : nil, height: isKeyFrame ? height : nil)
    }

    /// Z clear: the packet's first element begins an OBU. Not proof of a frame start (a frame's
    /// later packets may begin an OBU too); the assembler also wants the packet before it.
    public func canStartFrame(_ payload: [UInt8]) -> Bool {
        guard let first = payload.first else { return false }
        return first & 0x80 == 0
    }

    /// The OBU elements of a payload, copied; nil when a length is zero or overruns it.
    static func elements(_ payload: [UInt8]) -> [[UInt8]]? {
        payload.withUnsafeBytes { raw -> [[UInt8]]? in
            guard let parsed = AV1Payload(parsing: raw) else { return nil }
            var iterator = parsed.obuElements
            var elements: [[UInt8]] = []
            while let element = iterator.next() {
                elements.append(Array(element))
            }
            return iterator.isMalformed ? nil : elements
        }
    }

    /// An OBU rewritten with obu_has_size_field = 1 and obu_size; nil when its header does not parse.
    static func lowOverhead(_ obu: [UInt8]) -> (type: UInt8, bytes: [UInt8], payload: [UInt8])? {
        obu.withUnsafeBytes { raw -> (type: UInt8, bytes: [UInt8], payload: [UInt8])? in
            guard let header = AV1OBUHeader(parsing: raw) else { return nil }
            let payload = Array(header.payload(in: raw))
            var bytes: [UInt8] = [raw[0] | 0x02]
            if raw[0] & 0x04 != 0 { bytes.append(raw[1]) }  // the extension byte; the header parsed, so it is there
            LEB128Writer.append(payload.count, to: &bytes)
            bytes.append(contentsOf: payload)
            return (header.type, bytes, payload)
        }
    }
}

/// leb128() as the AV1 specification writes it (section 4.10.5): 7 bits a byte, low first,
/// the high bit saying another byte follows.
enum LEB128Writer {
    static func append(_ value: Int, to bytes: inout [UInt8]) {
        var rest = UInt64(max(0, value))
        repeat {
            var byte = UInt8(rest & 0x7f)
            rest >>= 7
            if rest != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while rest != 0
    }
}
