import SluiceWire

/// The AV1 RTP payload (AV1 RTP specification section 4): an aggregation header, then OBU
/// elements, each a whole OBU or a fragment of one. A view over the payload bytes; nothing is
/// copied.
public struct AV1Payload {
    public let payload: UnsafeRawBufferPointer
    public let aggregationHeader: AV1AggregationHeader

    public init?(parsing payload: UnsafeRawBufferPointer) {
        guard let header = AV1AggregationHeader(parsing: payload) else { return nil }
        self.payload = payload
        aggregationHeader = header
    }

    public var obuElements: AV1OBUElementIterator {
        AV1OBUElementIterator(UnsafeRawBufferPointer(rebasing: payload[AV1AggregationHeader.length...]),
                              count: Int(aggregationHeader.obuCount))
    }

    /// The payload of the first sequence header OBU that starts in this packet, obu_size
    /// excluded. A first element that continues an OBU of the previous packet (Z) is skipped:
    /// its OBU header is in that packet. Nothing is reassembled across packets: senders put the
    /// sequence header, a dozen bytes or so, first in a key frame's first packet.
    public var sequenceHeader: UnsafeRawBufferPointer? {
        var elements = obuElements
        var isFirst = true
        while let element = elements.next() {
            defer { isFirst = false }
            if isFirst && aggregationHeader.continuesFragment { continue }
            if let header = AV1OBUHeader(parsing: element), header.type == AV1OBUHeader.OBUType.sequenceHeader {
                return header.payload(in: element)
            }
        }
        return nil
    }
}

/// Walks the OBU elements of an AV1 RTP payload after its aggregation header. Each element has
/// a LEB128 length, except the last one when the header's W gives the count (1 to 3): that one
/// runs to the end of the payload. A length that is zero or overruns the payload ends the walk
/// and sets `isMalformed`.
public struct AV1OBUElementIterator: IteratorProtocol, Sequence {
    let body: UnsafeRawBufferPointer
    /// W: the number of elements, or 0 when each carries its length.
    let count: Int
    var offset = 0
    var index = 0
    public private(set) var isMalformed = false

    init(_ body: UnsafeRawBufferPointer, count: Int) {
        self.body = body
        self.count = count
    }

    public mutating func next() -> UnsafeRawBufferPointer? {
        guard offset < body.count else { return nil }
        let start: Int
        let length: Int
        if count != 0 && index == count - 1 {
            start = offset
            length = body.count - offset
        } else {
            var reader = ByteReader(body, offset: offset)
            guard let declared = reader.readLEB128(), declared > 0, declared <= reader.remaining else {
                isMalformed = true
                offset = body.count
                return nil
            }
            start = reader.offset
            length = declared
        }
        offset = start + length
        index += 1
        return UnsafeRawBufferPointer(rebasing: body[start..<start + length])
    }
}
