import Testing
@testable import SluiceRTP

/// Sequence header OBU payloads (after the 2-byte OBU header 0a nn) from libaom 3.6.0's aomenc
/// (Debian 12 aom-tools), encoding blank I420 frames:
///   aomenc --rt --cpu-used=10 -t 1 --limit=2 --i420 -w W -h H [--timing-info=T] --obu -o out.obu in.yuv
///   aomenc --allintra --cpu-used=9 -t 1 --limit=1 --i420 -w 320 -h 180 --obu -o still.obu in.yuv
/// A one-frame encode is a still picture, which libaom codes with the reduced header.
enum AomencSequenceHeaders {
    static let rt1280x720: [UInt8] = [0x00, 0x00, 0x00, 0x2d, 0x4c, 0xff, 0xb3, 0xcd, 0xaf, 0x90, 0x04]
    /// --timing-info=constant
    static let rt640x360Timing: [UInt8] = [
        0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x7b, 0x40, 0x00, 0x01, 0xbc, 0xc4, 0xff, 0x67,
        0x36, 0xbe, 0x40, 0x10,
    ]
    /// --timing-info=model: decoder model info, and operating parameters for the one operating point.
    static let rt320x180DecoderModel: [UInt8] = [
        0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x79, 0x78, 0x00, 0x00, 0x00, 0x0a, 0x53, 0x00,
        0x00, 0x03, 0x5f, 0x91, 0x5f, 0x90, 0xbc, 0x3c, 0xfe, 0xcc, 0xda, 0xf9, 0x00, 0x40,
    ]
    static let still320x180: [UInt8] = [0x18, 0x21, 0xe7, 0xf6, 0x6c, 0x00, 0x40]
}

struct AomencCase: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var profile: UInt8 = 0
    var isStill = false
    var isReduced = false
    var timing = false
    var decoderModel = false
    var level: UInt8
    var width: Int
    var height: Int
    /// Bytes up to the last bit of max_frame_height_minus_1: any shorter prefix is too short.
    var sizeEnd: Int
    var testDescription: String { name }
}

@Test(arguments: [
    AomencCase(name: "1280x720", bytes: AomencSequenceHeaders.rt1280x720, level: 5,
               width: 1280, height: 720, sizeEnd: 8),
    AomencCase(name: "640x360 timing", bytes: AomencSequenceHeaders.rt640x360Timing, timing: true, level: 1,
               width: 640, height: 360, sizeEnd: 16),
    AomencCase(name: "320x180 decoder model", bytes: AomencSequenceHeaders.rt320x180DecoderModel, timing: true,
               decoderModel: true, level: 0, width: 320, height: 180, sizeEnd: 26),
    AomencCase(name: "320x180 reduced still picture", bytes: AomencSequenceHeaders.still320x180, isStill: true,
               isReduced: true, level: 0, width: 320, height: 180, sizeEnd: 5),
])
func parsesAomencSequenceHeader(_ vector: AomencCase) throws {
    let header = try #require(vector.bytes.withUnsafeBytes { AV1SequenceHeader(parsing: $0) })
    #expect(header.profile == vector.profile)
    #expect(header.isStillPicture == vector.isStill)
    #expect(header.hasReducedStillPictureHeader == vector.isReduced)
    #expect(header.hasTimingInfo == vector.timing)
    #expect(header.hasDecoderModelInfo == vector.decoderModel)
    #expect(header.operatingPointCount == 1)
    #expect(header.levelIndex == vector.level)
    #expect(header.maxFrameWidth == vector.width && header.maxFrameHeight == vector.height)
    // Cut anywhere: nil until the frame size is complete, the same header from then on.
    for length in 0..<vector.bytes.count {
        let prefix = Array(vector.bytes.prefix(length))
        let parsed = prefix.withUnsafeBytes { AV1SequenceHeader(parsing: $0) }
        #expect(parsed == (length < vector.sizeEnd ? nil : header), "length \(length)")
    }
}

/// Writes bits MSB first, as the specification's f(n) reads them.
struct AV1BitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    mutating func put(_ value: UInt64, bits: Int) {
        precondition(bits == 64 || value >> UInt64(bits) == 0, "\(value) does not fit in \(bits) bits")
        for shift in stride(from: bits - 1, through: 0, by: -1) {
            if bitCount % 8 == 0 { bytes.append(0) }
            bytes[bytes.count - 1] |= UInt8(value >> UInt64(shift) & 1) << (7 - UInt8(bitCount % 8))
            bitCount += 1
        }
    }

    mutating func put(_ flag: Bool) { put(flag ? 1 : 0, bits: 1) }

    /// uvlc() (section 4.10.3): leading zeros, a one, then the rest of value + 1.
    mutating func putUVLC(_ value: UInt32) {
        let biased = UInt64(value) + 1
        let length = 64 - biased.leadingZeroBitCount
        put(0, bits: length - 1)
        put(biased, bits: length)
    }
}

/// The sequence header fields up to the maximum frame size, written in the order of section
/// 5.5.1 and ending right after max_frame_height_minus_1.
struct SequenceHeaderFields: CustomTestStringConvertible, Sendable {
    struct OperatingPoint: Sendable {
        var idc: UInt64 = 0
        var level: UInt8 = 8
        var tier = false
        /// Decoder and encoder buffer delays, low_delay_mode_flag; only with a decoder model.
        var parameters: (decoderDelay: UInt64, encoderDelay: UInt64, lowDelay: Bool)?
        var initialDisplayDelayMinus1: UInt64?
    }

    var name: String
    var profile: UInt8 = 0
    var isStill = false
    var isReduced = false
    var timing: (tick: UInt32, scale: UInt32, ticksPerPictureMinus1: UInt32?)?
    var decoderModel: (bufferDelayBits: Int, decodingTick: UInt32)?
    var initialDisplayDelay = false
    var operatingPoints = [OperatingPoint()]
    var widthBits = 11
    var heightBits = 10
    var width = 1280
    var height = 720
    var testDescription: String { name }

    var bytes: [UInt8] {
        var w = AV1BitWriter()
        w.put(UInt64(profile), bits: 3)
        w.put(isStill)
        w.put(isReduced)
        if isReduced {
            w.put(UInt64(operatingPoints[0].level), bits: 5)
        } else {
            w.put(timing != nil)
            if let timing {
                w.put(UInt64(timing.tick), bits: 32)
                w.put(UInt64(timing.scale), bits: 32)
                w.put(timing.ticksPerPictureMinus1 != nil)
                if let ticks = timing.ticksPerPictureMinus1 { w.putUVLC(ticks) }
                w.put(decoderModel != nil)
                if let decoderModel {
                    w.put(UInt64(decoderModel.bufferDelayBits - 1), bits: 5)
                    w.put(UInt64(decoderModel.decodingTick), bits: 32)
                    w.put(31, bits: 5)  // buffer_removal_time_length_minus_1
                    w.put(31, bits: 5)  // frame_presentation_time_length_minus_1
                }
            }
            w.put(initialDisplayDelay)
            w.put(UInt64(operatingPoints.count - 1), bits: 5)
            for point in operatingPoints {
                w.put(point.idc, bits: 12)
                w.put(UInt64(point.level), bits: 5)
                if point.level > 7 { w.put(point.tier) }
                if let decoderModel {
                    w.put(point.parameters != nil)
                    if let parameters = point.parameters {
                        w.put(parameters.decoderDelay, bits: decoderModel.bufferDelayBits)
                        w.put(parameters.encoderDelay, bits: decoderModel.bufferDelayBits)
                        w.put(parameters.lowDelay)
                    }
                }
                if initialDisplayDelay {
                    w.put(point.initialDisplayDelayMinus1 != nil)
                    if let delay = point.initialDisplayDelayMinus1 { w.put(delay, bits: 4) }
                }
            }
        }
        w.put(UInt64(widthBits - 1), bits: 4)
        w.put(UInt64(heightBits - 1), bits: 4)
        w.put(UInt64(width - 1), bits: widthBits)
        w.put(UInt64(height - 1), bits: heightBits)
        return w.bytes
    }
}

@Test(arguments: [
    SequenceHeaderFields(name: "1280x720, level 4.0", operatingPoints: [.init(level: 8)]),
    SequenceHeaderFields(name: "640x360, timing with an equal picture interval",
                         timing: (tick: 1, scale: 90_000, ticksPerPictureMinus1: 2_999), width: 640, height: 360),
    SequenceHeaderFields(name: "320x180, timing, no equal interval", timing: (tick: 1001, scale: 30_000, nil),
                         widthBits: 9, heightBits: 8, width: 320, height: 180),
    SequenceHeaderFields(name: "1920x1080 L3T3: three operating points, tiers and display delays", profile: 1,
                         initialDisplayDelay: true,
                         operatingPoints: [.init(idc: 0x707, level: 12, tier: true, initialDisplayDelayMinus1: 9),
                                           .init(idc: 0x303, level: 9),
                                           .init(idc: 0x101, level: 4, initialDisplayDelayMinus1: 0)],
                         heightBits: 11, width: 1920, height: 1080),
    SequenceHeaderFields(name: "decoder model with 24-bit buffer delays", timing: (tick: 1, scale: 30, 0),
                         decoderModel: (bufferDelayBits: 24, decodingTick: 1), initialDisplayDelay: true,
                         operatingPoints: [.init(idc: 0x103, level: 13, parameters: (70_000, 20_000, true),
                                                 initialDisplayDelayMinus1: 3),
                                           .init(idc: 0x101, level: 5, parameters: nil)]),
    SequenceHeaderFields(name: "65536x65536, 16-bit sizes", profile: 2, widthBits: 16, heightBits: 16,
                         width: 65536, height: 65536),
    SequenceHeaderFields(name: "1x1 reduced still picture", isStill: true, isReduced: true,
                         operatingPoints: [.init(level: 31)], widthBits: 1, heightBits: 1, width: 1, height: 1),
    SequenceHeaderFields(name: "still picture with the full header", profile: 2, isStill: true,
                         widthBits: 12, heightBits: 12, width: 4000, height: 3000),
])
func parsesHandBuiltSequenceHeader(_ fields: SequenceHeaderFields) throws {
    let bytes = fields.bytes
    let header = try #require(bytes.withUnsafeBytes { AV1SequenceHeader(parsing: $0) })
    #expect(header.profile == fields.profile)
    #expect(header.isStillPicture == fields.isStill)
    #expect(header.hasReducedStillPictureHeader == fields.isReduced)
    #expect(header.hasTimingInfo == (fields.timing != nil))
    #expect(header.hasDecoderModelInfo == (fields.decoderModel != nil))
    #expect(header.operatingPointCount == fields.operatingPoints.count)
    #expect(header.levelIndex == fields.operatingPoints[0].level)
    #expect(header.maxFrameWidth == fields.width && header.maxFrameHeight == fields.height)
    // The fields end in the last byte: one byte less is too short.
    #expect(bytes.dropLast().withUnsafeBytes { AV1SequenceHeader(parsing: $0) } == nil)
    // Whatever follows the frame size is not read.
    #expect((bytes + [0xff, 0x00]).withUnsafeBytes { AV1SequenceHeader(parsing: $0) } == header)
}

@Test func handBuiltHeaderMatchesAomenc() {
    // Both say profile 0, level 5, one operating point, 11 and 10 size bits: the same first 58 bits.
    let fields = SequenceHeaderFields(name: "", operatingPoints: [.init(level: 5)])
    let real = AomencSequenceHeaders.rt1280x720
    #expect(fields.bytes.prefix(7) == real.prefix(7))
    #expect(fields.bytes[7] == real[7] & 0xc0)
}

@Test(arguments: [
    // Reserved profiles 3 to 7.
    ("profile 3", SequenceHeaderFields(name: "", profile: 3).bytes),
    ("profile 7", [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ("reduced header on a video", SequenceHeaderFields(name: "", isReduced: true).bytes),
    ("zero display tick", SequenceHeaderFields(name: "", timing: (tick: 0, scale: 90_000, nil)).bytes),
    ("zero time scale", SequenceHeaderFields(name: "", timing: (tick: 1, scale: 0, nil)).bytes),
    ("zero decoding tick", SequenceHeaderFields(name: "", timing: (tick: 1, scale: 30, nil),
                                                decoderModel: (bufferDelayBits: 8, decodingTick: 0)).bytes),
    // timing_info_present, tick 1, scale 1, equal_picture_interval, then uvlc() with 34 zeros:
    // 2^32 - 1 pictures per tick is out of range.
    ("uvlc of 32 zeros", [0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00,
                          0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ("empty", []),
] as [(String, [UInt8])])
func rejectsSequenceHeader(_ name: String, _ bytes: [UInt8]) {
    #expect(bytes.withUnsafeBytes { AV1SequenceHeader(parsing: $0) } == nil, "\(name)")
}

@Test func survivesArbitraryBytes() {
    // A fixed-seed generator: the same inputs every run. No input may trap, and a size read
    // from at most 16 bits is at least 1 and at most 65536.
    var state: UInt64 = 0x9e37_79b9_7f4a_7c15
    func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
    var parsed = 0
    for _ in 0..<20_000 {
        let bytes = (0..<Int(next() % 40)).map { _ in UInt8(truncatingIfNeeded: next()) }
        guard let header = bytes.withUnsafeBytes({ AV1SequenceHeader(parsing: $0) }) else { continue }
        parsed += 1
        #expect((1...65536).contains(header.maxFrameWidth) && (1...65536).contains(header.maxFrameHeight))
        #expect(header.profile <= 2 && header.operatingPointCount <= 32)
    }
    #expect(parsed > 0)
}
