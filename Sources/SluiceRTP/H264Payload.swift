import SluiceWire

/// The H.264 RTP payload structure (RFC 6184): single NAL unit, STAP-A aggregation or FU-A
/// fragment. A view over the payload bytes; nothing is copied.
public struct H264Payload {
    public enum NALUnitType {
        public static let idrSlice: UInt8 = 5
        public static let sei: UInt8 = 6
        public static let sps: UInt8 = 7
        public static let pps: UInt8 = 8
        public static let stapA: UInt8 = 24
        public static let fuA: UInt8 = 28
    }

    public let payload: UnsafeRawBufferPointer
    /// The type in the first byte: a NAL unit type 1...23, or 24 (STAP-A), 28 (FU-A), ...
    public let nalUnitType: UInt8

    public init?(parsing payload: UnsafeRawBufferPointer) {
        guard payload.count >= 1, payload[0] & 0x80 == 0 else { return nil }  // F bit must be 0
        self.payload = payload
        nalUnitType = payload[0] & 0x1f
    }

    public var isSingleNALUnit: Bool { nalUnitType >= 1 && nalUnitType <= 23 }
    public var isSTAPA: Bool { nalUnitType == NALUnitType.stapA }
    public var isFUA: Bool { nalUnitType == NALUnitType.fuA }

    /// FU-A: the fragment starts a NAL unit (S bit).
    public var isFragmentStart: Bool { isFUA && payload.count >= 2 && payload[1] & 0x80 != 0 }
    /// FU-A: the fragment ends a NAL unit (E bit).
    public var isFragmentEnd: Bool { isFUA && payload.count >= 2 && payload[1] & 0x40 != 0 }
    /// FU-A: the type of the fragmented NAL unit.
    public var fragmentedNALUnitType: UInt8? { isFUA && payload.count >= 2 ? payload[1] & 0x1f : nil }

    /// The aggregated NAL units of a STAP-A (empty for other packets).
    public var aggregatedNALUnits: H264AggregatedNALUnitIterator {
        H264AggregatedNALUnitIterator(isSTAPA ? UnsafeRawBufferPointer(rebasing: payload[1...]) : .init(start: nil, count: 0))
    }

    /// An IDR slice or an SPS at the start of a NAL unit: the packet begins a key frame.
    public var isKeyFrame: Bool {
        func isKey(_ type: UInt8) -> Bool { type == NALUnitType.idrSlice || type == NALUnitType.sps }
        if isSingleNALUnit { return isKey(nalUnitType) }
        if isFUA { return isFragmentStart && fragmentedNALUnitType.map(isKey) == true }
        if isSTAPA {
            var units = aggregatedNALUnits
            while let unit = units.next() {
                if isKey(unit[0] & 0x1f) { return true }
            }
        }
        return false
    }

    /// The first SPS NAL unit carried whole (single NAL unit or inside a STAP-A), header byte included.
    public var sequenceParameterSet: UnsafeRawBufferPointer? {
        if nalUnitType == NALUnitType.sps { return payload }
        var units = aggregatedNALUnits
        while let unit = units.next() {
            if unit.count > 0, unit[0] & 0x1f == NALUnitType.sps { return unit }
        }
        return nil
    }
}

/// Walks the 16-bit length-prefixed NAL units of a STAP-A body; a unit overrunning the body
/// ends the walk and sets `isMalformed`.
public struct H264AggregatedNALUnitIterator: IteratorProtocol, Sequence {
    let body: UnsafeRawBufferPointer
    var offset = 0
    public private(set) var isMalformed = false

    init(_ body: UnsafeRawBufferPointer) {
        self.body = body
    }

    public mutating func next() -> UnsafeRawBufferPointer? {
        guard offset + 2 <= body.count else {
            if offset < body.count { isMalformed = true }
            offset = body.count
            return nil
        }
        let length = Int(body.loadBigEndianUInt16(at: offset))
        let start = offset + 2
        guard length > 0, start + length <= body.count else {
            isMalformed = true
            offset = body.count
            return nil
        }
        offset = start + length
        return UnsafeRawBufferPointer(rebasing: body[start..<start + length])
    }
}
