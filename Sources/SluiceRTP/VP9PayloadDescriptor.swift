import SluiceWire

/// The VP9 payload descriptor (draft-ietf-payload-vp9-16 section 4.2) at the start of an RTP payload.
public struct VP9PayloadDescriptor: Equatable, Sendable {
    /// I: a PictureID is present.
    public let hasPictureID: Bool
    /// P: inter-picture predicted (depends on an earlier picture).
    public let isInterPicturePredicted: Bool
    /// L: layer indices are present.
    public let hasLayerIndices: Bool
    /// F: flexible mode (reference indices instead of TL0PICIDX and a scalability structure group).
    public let isFlexibleMode: Bool
    /// B: first packet of a layer frame.
    public let isStartOfFrame: Bool
    /// E: last packet of a layer frame.
    public let isEndOfFrame: Bool
    /// V: a scalability structure is present.
    public let hasScalabilityStructure: Bool
    /// Z: not used as reference by the next spatial layer.
    public let isNotReferencedByUpperSpatialLayer: Bool

    /// 7 or 15 bits; nil when absent.
    public let pictureID: UInt16?
    public let hasLongPictureID: Bool
    public let temporalLayerIndex: UInt8?
    /// U: switching up to a higher temporal layer is possible here.
    public let isSwitchingUpPoint: Bool
    public let spatialLayerIndex: UInt8?
    /// D: depends on the spatial layer below.
    public let hasInterLayerDependency: Bool
    /// Only in non-flexible mode with layer indices.
    public let tl0PicIdx: UInt8?
    /// Spatial layers described by the scalability structure (N_S + 1), 0 without one.
    public let spatialLayerCount: Int
    /// Temporal layers of the structure's picture group (its highest TID + 1), 0 without one
    /// (flexible mode sends none).
    public let groupTemporalLayerCount: Int
    /// Resolution of the highest spatial layer, when the scalability structure carries sizes.
    public let width: Int?
    public let height: Int?
    /// Descriptor size: where the VP9 frame data starts.
    public let length: Int

    public init?(parsing payload: UnsafeRawBufferPointer) {
        var reader = ByteReader(payload)
        guard let flags = reader.readUInt8() else { return nil }
        hasPictureID = flags & 0x80 != 0
        isInterPicturePredicted = flags & 0x40 != 0
        hasLayerIndices = flags & 0x20 != 0
        isFlexibleMode = flags & 0x10 != 0
        isStartOfFrame = flags & 0x08 != 0
        isEndOfFrame = flags & 0x04 != 0
        hasScalabilityStructure = flags & 0x02 != 0
        isNotReferencedByUpperSpatialLayer = flags & 0x01 != 0

        var pictureID: UInt16?
        var longPictureID = false
        if hasPictureID {
            guard let high = reader.readUInt8() else { return nil }
            if high & 0x80 != 0 {
                guard let low = reader.readUInt8() else { return nil }
                pictureID = UInt16(high & 0x7f) << 8 | UInt16(low)
                longPictureID = true
            } else {
                pictureID = UInt16(high)
            }
        }
        self.pictureID = pictureID
        hasLongPictureID = longPictureID

        var tid: UInt8?
        var sid: UInt8?
        var switchingUp = false
        var interLayer = false
        var tl0: UInt8?
        if hasLayerIndices {
            guard let layers = reader.readUInt8() else { return nil }
            tid = layers >> 5
            switchingUp = layers & 0x10 != 0
            sid = layers >> 1 & 0x07
            interLayer = layers & 0x01 != 0
            if !isFlexibleMode {
                guard let value = reader.readUInt8() else { return nil }
                tl0 = value
            }
        }
        temporalLayerIndex = tid
        spatialLayerIndex = sid
        isSwitchingUpPoint = switchingUp
        hasInterLayerDependency = interLayer
        tl0PicIdx = tl0

        if isFlexibleMode && isInterPicturePredicted {
            // Up to three P_DIFF bytes, each with N set when another follows.
            for index in 0..<3 {
                guard let diff = reader.readUInt8() else { return nil }
                if diff & 0x01 == 0 { break }
                if index == 2 { return nil }
            }
        }

        var layerCount = 0
        var groupTemporal = 0
        var width: Int?
        var height: Int?
        if hasScalabilityStructure {
            guard let header = reader.readUInt8() else { return nil }
            layerCount = Int(header >> 5) + 1
            if header & 0x10 != 0 {  // Y: sizes follow
                for _ in 0..<layerCount {
                    guard let w = reader.readUInt16(), let h = reader.readUInt16() else { return nil }
                    width = Int(w)
                    height = Int(h)
                }
            }
            if header & 0x08 != 0 {  // G: picture group description follows
                guard let groups = reader.readUInt8() else { return nil }
                for _ in 0..<groups {
                    guard let group = reader.readUInt8(), reader.skip(Int(group >> 2 & 0x03)) else { return nil }
                    groupTemporal = max(groupTemporal, Int(group >> 5) + 1)
                }
            }
        }
        spatialLayerCount = layerCount
        groupTemporalLayerCount = groupTemporal
        self.width = width
        self.height = height
        length = reader.offset
    }

    /// The size of each spatial layer, lowest first, when the scalability structure carries
    /// them (Y); empty otherwise. Allocates: for when the structure changed, not per packet.
    public static func layerSizes(in payload: UnsafeRawBufferPointer) -> [(width: Int, height: Int)] {
        guard let descriptor = VP9PayloadDescriptor(parsing: payload), descriptor.hasScalabilityStructure,
              descriptor.width != nil else { return [] }
        // The structure is the descriptor's last part: its sizes start one byte in (after N_S|Y|G).
        var start = 1 + (descriptor.hasPictureID ? (descriptor.hasLongPictureID ? 2 : 1) : 0)
        if descriptor.hasLayerIndices { start += descriptor.isFlexibleMode ? 1 : 2 }
        if descriptor.isFlexibleMode && descriptor.isInterPicturePredicted {
            var index = start
            while index < payload.count, payload[index] & 0x01 != 0 { index += 1 }
            start = index + 1
        }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: payload[(start + 1)...]))
        var sizes: [(width: Int, height: Int)] = []
        for _ in 0..<descriptor.spatialLayerCount {
            guard let w = reader.readUInt16(), let h = reader.readUInt16() else { return [] }
            sizes.append((Int(w), Int(h)))
        }
        return sizes
    }

    /// Start of a picture that needs no earlier picture, in the base spatial layer.
    public var isKeyFrame: Bool {
        !isInterPicturePredicted && isStartOfFrame && (spatialLayerIndex ?? 0) == 0
    }
}
