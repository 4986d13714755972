import SluiceRTP

/// RFC 6184, packetization-mode 1 (what WebRTC sends): single NAL units, STAP-A and FU-A,
/// rebuilt into an Annex B access unit (each NAL unit after 00 00 00 01). The latest SPS and
/// PPS seen are kept: an MP4 writer needs them as extradata (avcC) before the first sample.
public struct H264Depacketizer: FrameDepacketizer {
    /// The latest SPS and PPS NAL units (header byte included, no start code).
    public private(set) var sequenceParameterSet: [UInt8]?
    public private(set) var pictureParameterSet: [UInt8]?
    /// Picture size from the latest SPS that parsed.
    public private(set) var width: Int?
    public private(set) var height: Int?

    static let startCode: [UInt8] = [0, 0, 0, 1]

    public init() {}

    public var codec: RecordedCodec { .h264 }

    public mutating func depacketize(_ packets: [RecordedPacket]) -> DepacketizedFrame? {
        var units: [[UInt8]] = []
        // The NAL unit an FU-A is rebuilding, nil outside one.
        var fragment: [UInt8]?
        for packet in packets {
            let payload = packet.payload
            guard let first = payload.first, first & 0x80 == 0 else { return nil }  // F bit set: damaged
            let type = first & 0x1f
            switch type {
            case 1...23:
                guard fragment == nil else { return nil }  // an FU-A without its end
                units.append(payload)
            case H264Payload.NALUnitType.stapA:
                guard fragment == nil else { return nil }
                guard let aggregated = Self.stapAUnits(payload) else { return nil }
                units.append(contentsOf: aggregated)
            case H264Payload.NALUnitType.fuA:
                guard payload.count >= 3 else { return nil }
                let fuHeader = payload[1]
                let isStart = fuHeader & 0x80 != 0
                let isEnd = fuHeader & 0x40 != 0
                if isStart {
                    guard fragment == nil else { return nil }
                    // The NAL header is rebuilt from the FU indicator's F and NRI and the FU header's type.
                    fragment = [first & 0xe0 | fuHeader & 0x1f]
                } else if fragment == nil {
                    return nil  // a middle or end without the start
                }
                fragment!.append(contentsOf: payload[2...])
                if isEnd {
                    units.append(fragment!)
                    fragment = nil
                }
            default:
                return nil  // STAP-B, MTAP, FU-B: not in packetization-mode 1; 0, 30, 31: reserved
            }
        }
        guard fragment == nil, !units.isEmpty else { return nil }

        var data: [UInt8] = []
        var isKeyFrame = false
        for unit in units {
            switch unit[0] & 0x1f {
            case H264Payload.NALUnitType.idrSlice:
                isKeyFrame = true
            case H264Payload.NALUnitType.sps:
                sequenceParameterSet = unit
                if let parsed = unit.withUnsafeBytes({ H264SequenceParameterSet(parsing: $0) }) {
                    width = parsed.width
                    height = parsed.height
                }
            case H264Payload.NALUnitType.pps:
                pictureParameterSet = unit
            default:
                break
            }
            data.append(contentsOf: Self.startCode)
            data.append(contentsOf: unit)
        }
        return DepacketizedFrame(data: data, isKeyFrame: isKeyFrame,
                                 width: isKeyFrame ? width : nil, height: isKeyFrame ? height : nil)
    }

    /// The NAL units of a STAP-A, nil when a length overruns the packet or is zero.
    static func stapAUnits(_ payload: [UInt8]) -> [[UInt8]]? {
        var units: [[UInt8]] = []
        var offset = 1
        while offset < payload.count {
            guard offset + 2 <= payload.count else { return nil }
            let length = Int(payload[offset]) << 8 | Int(payload[offset + 1])
            offset += 2
            guard length > 0, offset + length <= payload.count else { return nil }
            units.append(Array(payload[offset..<offset + length]))
            offset += length
        }
        return units.isEmpty ? nil : units
    }

    public func canStartFrame(_ payload: [UInt8]) -> Bool {
        guard let first = payload.first else { return false }
        switch first & 0x1f {
        case 1...23, H264Payload.NALUnitType.stapA: return true
        case H264Payload.NALUnitType.fuA: return payload.count >= 2 && payload[1] & 0x80 != 0
        default: return false
        }
    }
}
