/// The URIs by which SDP (a=extmap) names the extensions Sluice reads or writes.
public enum RTPHeaderExtensionURI {
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    public static let rtpStreamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    public static let repairedRTPStreamID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    public static let absSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
}

/// abs-send-time: 24-bit fixed point 6.18 seconds, wrapping every 64 s.
public enum AbsSendTime {
    /// The 6.18 value of a time in microseconds (any epoch: only the low 64 s survive).
    @inlinable @inline(__always)
    public static func value(micros: UInt64) -> UInt32 {
        // Split to keep the shift from overflowing for any 64-bit input.
        let seconds = micros / 1_000_000
        let fraction = micros % 1_000_000
        return UInt32(truncatingIfNeeded: (seconds << 18) | ((fraction << 18) / 1_000_000)) & 0xff_ffff
    }

    @inlinable
    public static func read(_ value: UnsafeRawBufferPointer) -> UInt32? {
        guard value.count == 3 else { return nil }
        return UInt32(value[0]) << 16 | UInt32(value[1]) << 8 | UInt32(value[2])
    }

    /// Writes into a 3-byte value in place; false for any other length.
    @inlinable @discardableResult
    public static func write(_ time: UInt32, into value: UnsafeMutableRawBufferPointer) -> Bool {
        guard value.count == 3 else { return false }
        value[0] = UInt8(truncatingIfNeeded: time >> 16)
        value[1] = UInt8(truncatingIfNeeded: time >> 8)
        value[2] = UInt8(truncatingIfNeeded: time)
        return true
    }
}

/// transport-wide-cc: a 16-bit transport-wide sequence number.
public enum TransportWideSequenceNumber {
    @inlinable
    public static func read(_ value: UnsafeRawBufferPointer) -> UInt16? {
        guard value.count >= 2 else { return nil }
        return UInt16(value[0]) << 8 | UInt16(value[1])
    }

    @inlinable @discardableResult
    public static func write(_ sequenceNumber: UInt16, into value: UnsafeMutableRawBufferPointer) -> Bool {
        guard value.count >= 2 else { return false }
        value[0] = UInt8(truncatingIfNeeded: sequenceNumber >> 8)
        value[1] = UInt8(truncatingIfNeeded: sequenceNumber)
        return true
    }
}

/// ssrc-audio-level (RFC 6464): voice activity bit and level in -dBov, 0 (loud) ... 127 (silent).
public struct AudioLevel: Equatable, Sendable {
    public var voiceActivity: Bool
    public var level: UInt8

    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    @inlinable
    public init?(parsing value: UnsafeRawBufferPointer) {
        guard value.count >= 1 else { return nil }
        voiceActivity = value[0] & 0x80 != 0
        level = value[0] & 0x7f
    }

    public var byte: UInt8 { (voiceActivity ? 0x80 : 0) | level & 0x7f }
}

/// A mid or rid token (RFC 8843, RFC 8852) held inline, so one read from a packet can be
/// compared or used as a dictionary key without allocating. Up to 32 bytes.
public struct RTPToken: Hashable, Sendable, CustomStringConvertible {
    public static let capacity = 32
    @usableFromInline var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    public private(set) var count: Int = 0

    /// Nil when empty or longer than `capacity`.
    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0, bytes.count <= Self.capacity, let source = bytes.baseAddress else { return nil }
        count = bytes.count
        withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: source, byteCount: bytes.count) }
    }

    public init?(_ string: String) {
        var copy = string
        guard let token = copy.withUTF8({ RTPToken(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = token
    }

    public static func == (a: RTPToken, b: RTPToken) -> Bool {
        a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1
            && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// Inlinable: a sender writes a player's mid from it on every packet.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: words) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    public var description: String {
        withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
}
