import SluiceVocabulary

/// One RTP packet of a recorded stream as the recorder thread gets it: a copy of the payload,
/// taken from the worker's queue, so no worker buffer is held while frames are reassembled.
public struct RecordedPacket: Sendable {
    public var kind: MediaKind
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var marker: Bool
    /// The RTP payload: no header, no extensions, no padding.
    public var payload: [UInt8]
    /// When the server received it (µs, the monotonic clock of `SluiceWire.MonotonicClock`).
    public var arrivalMicros: UInt64

    public init(kind: MediaKind, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: [UInt8],
                arrivalMicros: UInt64) {
        self.kind = kind
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.marker = marker
        self.payload = payload
        self.arrivalMicros = arrivalMicros
    }
}

/// A sender report's clock pair for one kind: the NTP time (RFC 3550, 32.32 fixed point) at
/// which the publisher's RTP clock read `rtpTimestamp`. What keeps audio and video in sync.
public struct RecordedClockPair: Sendable, Equatable {
    public var kind: MediaKind
    public var ntp: UInt64
    public var rtpTimestamp: UInt32

    public init(kind: MediaKind, ntp: UInt64, rtpTimestamp: UInt32) {
        self.kind = kind
        self.ntp = ntp
        self.rtpTimestamp = rtpTimestamp
    }
}
