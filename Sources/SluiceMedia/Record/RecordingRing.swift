import SluiceVocabulary
import Synchronization

/// The hand-over of one recording from the stream's home worker to the recorder thread: a
/// bounded single-producer, single-consumer ring of packet copies (docs/design.md,
/// "Recording"). The worker copies each recorded packet's payload into a slot during its
/// fan-out (no allocation, no lock: the slots are allocated with the ring) and the recorder
/// thread takes them when it wakes. Indices as in `RelayQueue`: each side owns one and
/// publishes it with release ordering.
///
/// A full ring drops the packet (counted in `dropped`, and the recording is marked damaged):
/// a recorder that falls behind, or a slow disk, never makes the worker wait.
// @unchecked: single producer (the worker), single consumer (the recorder): each slot is handed over by the release/acquire of the atomic indices.
public final class RecordingRing: @unchecked Sendable {
    /// About 4 s of a 720p layer with its audio; 1.5 MB per recording.
    public static let capacity = 1024
    /// A slot's payload room: an RTP payload past this is not a WebRTC packet (MTU 1500).
    public static let payloadBytes = 1400
    private static let mask = capacity - 1

    struct Header {
        var entry: UInt8 = 0  // 0 audio packet, 1 video packet, 2 audio clock, 3 video clock
        var payloadType: UInt8 = 0
        var marker = false
        var sequence: UInt16 = 0
        var length: UInt16 = 0
        var timestamp: UInt32 = 0
        var micros: UInt64 = 0
        var ntp: UInt64 = 0
    }

    /// What the recorder thread takes from the ring.
    public enum Entry: Sendable, Equatable {
        case packet(kind: MediaKind, payloadType: UInt8, sequence: UInt16, timestamp: UInt32, marker: Bool,
                    payload: [UInt8], arrivalMicros: UInt64)
        /// A sender report's clock pair (RFC 3550 NTP, 32.32) for the kind's RTP clock.
        case clock(kind: MediaKind, ntp: UInt64, rtpTimestamp: UInt32)
    }

    private let headers: UnsafeMutablePointer<Header>
    private let payloads: UnsafeMutableRawPointer
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)
    /// [0]: the worker's copy of `head`; [1]: the recorder's copy of `tail`.
    private let cached: UnsafeMutablePointer<Int>

    /// Packets the worker could not hand over (ring full, or a payload past `payloadBytes`).
    public let dropped = Atomic<UInt64>(0)
    /// Set by the worker when the recording's tap is gone (the publisher left, or the
    /// recording was stopped): the recorder drains what is left and closes the file.
    public let closed = Atomic<Bool>(false)
    /// Set by the recorder when it needs a key frame (the start, or after a lost frame); the
    /// worker's tap asks the publisher and clears it.
    public let keyFrameWanted = Atomic<Bool>(true)

    public init() {
        headers = .allocate(capacity: Self.capacity)
        headers.initialize(repeating: Header(), count: Self.capacity)
        payloads = .allocate(byteCount: Self.capacity * Self.payloadBytes, alignment: 16)
        cached = .allocate(capacity: 2)
        cached.initialize(repeating: 0, count: 2)
    }

    deinit {
        headers.deallocate()
        payloads.deallocate()
        cached.deallocate()
    }

    // MARK: The worker's side

    /// One packet's payload, copied. False (and counted) when it cannot be taken.
    @inline(__always)
    func push(kind: MediaKind, payloadType: UInt8, sequence: UInt16, timestamp: UInt32, marker: Bool,
              payload: UnsafeRawBufferPointer, now: UInt64) -> Bool {
        guard payload.count <= Self.payloadBytes, let slot = reserve() else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        let index = slot & Self.mask
        headers[index] = Header(entry: kind == .audio ? 0 : 1, payloadType: payloadType, marker: marker,
                                sequence: sequence, length: UInt16(payload.count), timestamp: timestamp, micros: now)
        if let base = payload.baseAddress, payload.count > 0 {
            (payloads + index * Self.payloadBytes).copyMemory(from: base, byteCount: payload.count)
        }
        tail.store(slot + 1, ordering: .releasing)
        return true
    }

    /// A sender report of the kind: the clock pair that keeps audio and video in sync.
    func pushClock(kind: MediaKind, ntp: UInt64, rtpTimestamp: UInt32) {
        guard let slot = reserve() else {
            dropped.add(1, ordering: .relaxed)
            return
        }
        headers[slot & Self.mask] = Header(entry: kind == .audio ? 2 : 3, timestamp: rtpTimestamp, ntp: ntp)
        tail.store(slot + 1, ordering: .releasing)
    }

    @inline(__always)
    private func reserve() -> Int? {
        let position = tail.load(ordering: .relaxed)
        if position - cached[0] >= Self.capacity {
            cached[0] = head.load(ordering: .acquiring)
            if position - cached[0] >= Self.capacity { return nil }
        }
        return position
    }

    // MARK: The recorder's side

    /// The oldest entry, or nil when the ring is empty (a copy: the slot is free at once).
    public func pop() -> Entry? {
        let position = head.load(ordering: .relaxed)
        if position == cached[1] {
            cached[1] = tail.load(ordering: .acquiring)
            if position == cached[1] { return nil }
        }
        let index = position & Self.mask
        let header = headers[index]
        let entry: Entry
        switch header.entry {
        case 2, 3:
            entry = .clock(kind: header.entry == 2 ? .audio : .video, ntp: header.ntp, rtpTimestamp: header.timestamp)
        default:
            let bytes = UnsafeRawBufferPointer(start: payloads + index * Self.payloadBytes, count: Int(header.length))
            entry = .packet(kind: header.entry == 0 ? .audio : .video, payloadType: header.payloadType,
                            sequence: header.sequence, timestamp: header.timestamp, marker: header.marker,
                            payload: [UInt8](bytes), arrivalMicros: header.micros)
        }
        head.store(position + 1, ordering: .releasing)
        return entry
    }
}
