/// The start of an AV1 sequence header OBU (AV1 specification section 5.5), read up to the
/// maximum frame size: what a key frame says about a layer's resolution.
///
/// The maximum frame size is the coded size of every frame that does not override it
/// (frame_size_override_flag, found in frame headers: spatial SVC layers, encoder-internal
/// resizing); a simulcast layer's encoder starts a new sequence when its resolution changes.
public struct AV1SequenceHeader: Equatable, Sendable {
    /// seq_profile: 0 main, 1 high, 2 professional.
    public let profile: UInt8
    public let isStillPicture: Bool
    public let hasReducedStillPictureHeader: Bool
    public let hasTimingInfo: Bool
    public let hasDecoderModelInfo: Bool
    /// operating_points_cnt_minus_1 + 1: one per decodable layer combination of an SVC stream.
    public let operatingPointCount: Int
    /// seq_level_idx of operating point 0, the one a decoder chooses unless told otherwise.
    public let levelIndex: UInt8
    /// max_frame_width_minus_1 + 1 and max_frame_height_minus_1 + 1.
    public let maxFrameWidth: Int
    public let maxFrameHeight: Int

    /// Parses a sequence header OBU's payload (after the OBU header and any obu_size). nil when
    /// the bytes end before the frame size, or break a rule of the specification that the fields
    /// read so far can show.
    public init?(parsing payload: UnsafeRawBufferPointer) {
        var r = ExpGolombReader(payload)
        guard let profile = r.readBits(3), profile <= 2,
              let still = r.readFlag(), let reduced = r.readFlag(),
              still || !reduced else { return nil }
        var timing = false
        var decoderModel = false
        var pointCount = 1
        var level: UInt32
        if reduced {
            guard let value = r.readBits(5) else { return nil }
            level = value
        } else {
            guard let timingPresent = r.readFlag() else { return nil }
            timing = timingPresent
            var bufferDelayBits = 0
            if timing {
                guard Self.skipTimingInfo(&r), let modelPresent = r.readFlag() else { return nil }
                decoderModel = modelPresent
                if decoderModel {
                    guard let bits = Self.skipDecoderModelInfo(&r) else { return nil }
                    bufferDelayBits = bits
                }
            }
            guard let displayDelayPresent = r.readFlag(), let countMinus1 = r.readBits(5) else { return nil }
            pointCount = Int(countMinus1) + 1
            level = 0
            for point in 0..<pointCount {
                guard r.readBits(12) != nil,  // operating_point_idc
                      let pointLevel = r.readBits(5) else { return nil }
                if point == 0 { level = pointLevel }
                if pointLevel > 7 {
                    guard r.readFlag() != nil else { return nil }  // seq_tier
                }
                if decoderModel {
                    guard let present = r.readFlag() else { return nil }
                    // operating_parameters_info: decoder and encoder buffer delays, low_delay_mode_flag.
                    if present {
                        guard r.readBits(bufferDelayBits) != nil, r.readBits(bufferDelayBits) != nil,
                              r.readFlag() != nil else { return nil }
                    }
                }
                if displayDelayPresent {
                    guard let present = r.readFlag() else { return nil }
                    if present {
                        guard r.readBits(4) != nil else { return nil }  // initial_display_delay_minus_1
                    }
                }
            }
        }
        guard let widthBitsMinus1 = r.readBits(4), let heightBitsMinus1 = r.readBits(4),
              let widthMinus1 = r.readBits(Int(widthBitsMinus1) + 1),
              let heightMinus1 = r.readBits(Int(heightBitsMinus1) + 1) else { return nil }
        self.profile = UInt8(profile)
        isStillPicture = still
        hasReducedStillPictureHeader = reduced
        hasTimingInfo = timing
        hasDecoderModelInfo = decoderModel
        operatingPointCount = pointCount
        levelIndex = UInt8(level)
        maxFrameWidth = Int(widthMinus1) + 1
        maxFrameHeight = Int(heightMinus1) + 1
    }

    /// timing_info (section 5.5.3). The tick and the time scale must be non-zero.
    private static func skipTimingInfo(_ r: inout ExpGolombReader) -> Bool {
        guard let tick = r.readBits(32), tick > 0, let scale = r.readBits(32), scale > 0,
              let equalInterval = r.readFlag() else { return false }
        if equalInterval {
            // num_ticks_per_picture_minus_1, uvlc(): Exp-Golomb as in H.264. The one value
            // uvlc() has beyond ue(v)'s 32-bit codes, 2^32 - 1, is out of this field's range.
            guard r.readUnsigned() != nil else { return false }
        }
        return true
    }

    /// decoder_model_info (section 5.5.4); returns the width of the buffer delay fields.
    private static func skipDecoderModelInfo(_ r: inout ExpGolombReader) -> Int? {
        guard let delayBitsMinus1 = r.readBits(5),
              let tick = r.readBits(32), tick > 0,  // num_units_in_decoding_tick
              r.readBits(5) != nil,  // buffer_removal_time_length_minus_1
              r.readBits(5) != nil  // frame_presentation_time_length_minus_1
        else { return nil }
        return Int(delayBitsMinus1) + 1
    }
}
