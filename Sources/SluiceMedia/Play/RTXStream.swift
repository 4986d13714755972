import SluiceRTP
import SluiceWire

/// The retransmission stream (RFC 4588) that goes with one outgoing video track when the
/// player negotiated RTX: its own SSRC (the answer's `a=ssrc-group:FID <media> <rtx>`), the
/// RTX payload type (`a=fmtp:<rtx> apt=<media>`) and its own sequence numbers.
struct RTXStream: Equatable {
    let payloadType: UInt8
    let ssrc: UInt32
    /// The sequence number the next RTX packet takes; one per packet, wrapping.
    private(set) var nextSequence: UInt16

    /// Nil unless `track` is video with both an RTX payload type and a server RTX SSRC.
    init?(track: TrackParameters, initialSequence: UInt16 = UInt16.random(in: 1..<0x4000)) {
        guard track.kind == .video, let payloadType = track.rtxPayloadType, let ssrc = track.localRTXSSRC else { return nil }
        self.payloadType = payloadType
        self.ssrc = ssrc
        nextSequence = initialSequence
    }

    /// Writes the header of a retransmission of the packet sent as `originalSequence`: the
    /// original's marker, timestamp and header extensions with this stream's payload type,
    /// SSRC and next sequence number, then the original sequence number (OSN) as the first two
    /// bytes of the payload. Returns where the original payload goes (after the OSN), or nil
    /// when the writer overflowed; the sequence number is used either way.
    /// `appending`: one more extension element last, whose bytes stay where they are (the
    /// dependency descriptor of the packet repaired).
    mutating func writeHeader(into writer: inout ByteWriter, marker: Bool, timestamp: UInt32, originalSequence: UInt16,
                              extensions: borrowing RTPHeaderExtensionList,
                              appending: (id: UInt8, value: UnsafeRawBufferPointer)? = nil) -> Int? {
        let header = RTPHeader(marker: marker, payloadType: payloadType, sequenceNumber: nextSequence,
                               timestamp: timestamp, ssrc: ssrc)
        nextSequence &+= 1
        if let (id, value) = appending {
            guard header.write(into: &writer, extensions: extensions, appending: id, value: value) != nil else { return nil }
        } else {
            guard header.write(into: &writer, extensions: extensions) != nil else { return nil }
        }
        writer.write(originalSequence)
        return writer.overflowed ? nil : writer.offset
    }
}
