/// The fields of an H.264 sequence parameter set (ITU-T H.264 section 7.3.2.1.1) that give the
/// picture size. Parsing unescapes the NAL unit into a fixed stack buffer: no allocation.
public struct H264SequenceParameterSet: Equatable, Sendable {
    public let profileIDC: UInt8
    public let constraintFlags: UInt8
    public let levelIDC: UInt8
    public let chromaFormatIDC: UInt32
    /// Luma size after frame cropping.
    public let width: Int
    public let height: Int

    /// Bytes of RBSP examined; an SPS is normally far shorter.
    static let maximumLength = 256

    /// Profiles whose SPS carries chroma format, bit depths and scaling matrices.
    static func isHighProfile(_ profileIDC: UInt32) -> Bool {
        switch profileIDC {
        case 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135: return true
        default: return false
        }
    }

    /// Parses an SPS NAL unit, header byte (type 7) included.
    public init?(parsing nalUnit: UnsafeRawBufferPointer) {
        guard nalUnit.count >= 4, nalUnit[0] & 0x1f == H264Payload.NALUnitType.sps else { return nil }
        let escaped = UnsafeRawBufferPointer(rebasing: nalUnit[1...])
        let parsed: H264SequenceParameterSet? = withUnsafeTemporaryAllocation(
            byteCount: Self.maximumLength, alignment: 1
        ) { storage in
            let length = Self.removeEmulationPrevention(escaped, into: storage)
            return Self.parse(ExpGolombReader(UnsafeRawBufferPointer(rebasing: storage[0..<length])))
        }
        guard let parsed else { return nil }
        self = parsed
    }

    private init(profileIDC: UInt8, constraintFlags: UInt8, levelIDC: UInt8, chromaFormatIDC: UInt32,
                 width: Int, height: Int) {
        self.profileIDC = profileIDC
        self.constraintFlags = constraintFlags
        self.levelIDC = levelIDC
        self.chromaFormatIDC = chromaFormatIDC
        self.width = width
        self.height = height
    }

    /// Drops the 0x03 of every 00 00 03 sequence; copies at most `output.count` bytes.
    static func removeEmulationPrevention(_ input: UnsafeRawBufferPointer,
                                          into output: UnsafeMutableRawBufferPointer) -> Int {
        var written = 0
        var zeros = 0
        for byte in input {
            if zeros >= 2 && byte == 0x03 {
                zeros = 0
                continue
            }
            guard written < output.count else { break }
            output[written] = byte
            written += 1
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return written
    }

    private static func parse(_ reader: ExpGolombReader) -> H264SequenceParameterSet? {
        var r = reader
        guard let profile = r.readBits(8), let constraints = r.readBits(8), let level = r.readBits(8),
              r.readUnsigned() != nil else { return nil }  // seq_parameter_set_id
        var chromaFormat: UInt32 = 1
        var separateColourPlane = false
        if isHighProfile(profile) {
            guard let format = r.readUnsigned(), format <= 3 else { return nil }
            chromaFormat = format
            if format == 3 {
                guard let flag = r.readFlag() else { return nil }
                separateColourPlane = flag
            }
            guard r.readUnsigned() != nil, r.readUnsigned() != nil,  // bit depths
                  r.readFlag() != nil,  // qpprime_y_zero_transform_bypass_flag
                  let scalingMatrix = r.readFlag() else { return nil }
            if scalingMatrix {
                for index in 0..<(format == 3 ? 12 : 8) {
                    guard let present = r.readFlag() else { return nil }
                    if present, !skipScalingList(&r, size: index < 6 ? 16 : 64) { return nil }
                }
            }
        }
        guard r.readUnsigned() != nil,  // log2_max_frame_num_minus4
              let pocType = r.readUnsigned() else { return nil }
        if pocType == 0 {
            guard r.readUnsigned() != nil else { return nil }
        } else if pocType == 1 {
            guard r.readFlag() != nil, r.readSigned() != nil, r.readSigned() != nil,
                  let cycle = r.readUnsigned(), cycle <= 255 else { return nil }
            for _ in 0..<cycle {
                guard r.readSigned() != nil else { return nil }
            }
        }
        guard r.readUnsigned() != nil,  // max_num_ref_frames
              r.readFlag() != nil,  // gaps_in_frame_num_value_allowed_flag
              let widthInMBs = r.readUnsigned(), let heightInMapUnits = r.readUnsigned(),
              let frameMBsOnly = r.readFlag() else { return nil }
        if !frameMBsOnly {
            guard r.readFlag() != nil else { return nil }  // mb_adaptive_frame_field_flag
        }
        guard r.readFlag() != nil,  // direct_8x8_inference_flag
              let cropping = r.readFlag() else { return nil }
        var crop: (left: Int, right: Int, top: Int, bottom: Int) = (0, 0, 0, 0)
        if cropping {
            guard let left = r.readUnsigned(), let right = r.readUnsigned(),
                  let top = r.readUnsigned(), let bottom = r.readUnsigned() else { return nil }
            crop = (Int(left), Int(right), Int(top), Int(bottom))
        }
        let fieldFactor = frameMBsOnly ? 1 : 2
        let cropUnitX: Int
        let cropUnitY: Int
        if separateColourPlane || chromaFormat == 0 {
            cropUnitX = 1
            cropUnitY = fieldFactor
        } else {
            cropUnitX = chromaFormat == 3 ? 1 : 2
            cropUnitY = (chromaFormat == 1 ? 2 : 1) * fieldFactor
        }
        // ue values fit in 32 bits, so these products fit in Int on 64-bit targets.
        let width = (Int(widthInMBs) + 1) * 16 - cropUnitX * (crop.left + crop.right)
        let height = fieldFactor * (Int(heightInMapUnits) + 1) * 16 - cropUnitY * (crop.top + crop.bottom)
        guard width > 0, height > 0 else { return nil }
        return H264SequenceParameterSet(profileIDC: UInt8(profile), constraintFlags: UInt8(constraints),
                                        levelIDC: UInt8(level), chromaFormatIDC: chromaFormat,
                                        width: width, height: height)
    }

    private static func skipScalingList(_ r: inout ExpGolombReader, size: Int) -> Bool {
        var last: Int32 = 8
        var next: Int32 = 8
        for _ in 0..<size {
            if next != 0 {
                guard let delta = r.readSigned() else { return false }
                next = (last + delta % 256 + 256) % 256
            }
            if next != 0 { last = next }
        }
        return true
    }
}
