import CSRTP

/// Why a packet was refused; a caller counts these per kind.
public enum SRTPFailure: Sendable, Equatable {
    case none
    /// The caller's buffer cannot hold the packet plus the SRTP trailer.
    case bufferTooSmall
    /// Too short to be RTP/RTCP, or rejected while parsing the header.
    case malformed
    case authentication
    /// A packet index already seen.
    case replay
    /// A packet index older than the replay window.
    case replayTooOld
    /// Anything else, as a libsrtp status code (`srtp_err_status_t`).
    case other(UInt32)
}

/// How many packets a session refused, by reason.
public struct SRTPFailureCounts: Sendable, Equatable {
    public var malformed: UInt64 = 0
    public var authentication: UInt64 = 0
    /// Replayed or older than the window.
    public var replay: UInt64 = 0
    /// Buffer too small, or anything else.
    public var other: UInt64 = 0

    public var total: UInt64 { malformed + authentication + replay + other }
}

/// One direction of SRTP/SRTCP for one transport: protects (outbound) or unprotects
/// (inbound) packets in place in the caller's buffer, with no allocation per packet. Any SSRC
/// is accepted. Runs on Sluice's own SRTP over OpenSSL (`OpenSSLSRTPContext`) or on libsrtp2
/// (`LibSRTPContext`); both give the same bytes.
///
/// Not thread-safe: a session belongs to one worker.
public final class SRTPSession {
    public enum Direction: Sendable { case inbound, outbound }

    /// Replay window: large, because a forwarder's retransmissions arrive far out of order.
    public static let replayWindowSize = Int(SRTPReplayWindow.width)
    /// What `protectRTP` may add; `protectRTCP` adds 4 more (the SRTCP index).
    public static let maxRTPTrailer = Int(SRTP_MAX_TRAILER_LEN)
    public static let maxRTCPTrailer = Int(SRTP_MAX_TRAILER_LEN) + 4

    public let profile: SRTPProfile
    public let direction: Direction
    public let backend: SRTPBackend
    /// The reason of the most recent failed call.
    public var lastFailure: SRTPFailure { failures.pointee.last }
    public var failureCounts: SRTPFailureCounts { failures.pointee.counts }

    // One of the two, by `backend`. Two optionals rather than an existential: a packet pays
    // one nil check, no witness table.
    private let openSSL: OpenSSLSRTPContext?
    private let libsrtp: LibSRTPContext?
    /// Written on failures only, behind a pointer (docs/design.md, hot-path rule 8).
    private let failures: UnsafeMutablePointer<(last: SRTPFailure, counts: SRTPFailureCounts)>

    public struct InitError: Error, Equatable {
        public let status: UInt32
    }

    public init(profile: SRTPProfile, key: [UInt8], salt: [UInt8], direction: Direction,
                backend: SRTPBackend = .openSSL) throws {
        guard key.count == profile.keyLength, salt.count == profile.saltLength else {
            throw InitError(status: srtp_err_status_bad_param.rawValue)
        }
        self.profile = profile
        self.direction = direction
        self.backend = backend
        switch backend {
        case .openSSL:
            guard let context = OpenSSLSRTPContext(profile: profile, masterKey: key, masterSalt: salt, direction: direction)
            else { throw InitError(status: srtp_err_status_init_fail.rawValue) }
            openSSL = context
            libsrtp = nil
        case .libsrtp:
            libsrtp = try LibSRTPContext(profile: profile, key: key, salt: salt, direction: direction)
            openSSL = nil
        }
        failures = .allocate(capacity: 1)
        failures.initialize(to: (.none, SRTPFailureCounts()))
    }

    deinit {
        failures.deallocate()
    }

    /// Called with 1 before and 0 after each libsrtp RTP call. Nil in production; the
    /// allocation test uses it to tell libsrtp's allocations from Sluice's own. The OpenSSL
    /// back end never calls it: it has nothing to exclude.
    public static var libraryCallProbe: PacketPathProbes.Probe? {
        get { PacketPathProbes.slots[PacketPathProbes.libraryCall] }
        set { PacketPathProbes.slots[PacketPathProbes.libraryCall] = newValue }
    }

    /// Encrypts an RTP packet in place; `length` grows by the auth tag.
    public func protectRTP(_ buffer: UnsafeMutableRawPointer, length: inout Int, capacity: Int) -> Bool {
        guard length >= 12, length <= Int(Int32.max) else { return fail(.malformed) }
        guard capacity >= length + SRTPSession.maxRTPTrailer else { return fail(.bufferTooSmall) }
        let failure = openSSL?.protectRTP(buffer, length: &length) ?? libsrtp.unsafelyUnwrapped.protectRTP(buffer, length: &length)
        return finish(failure)
    }

    /// Decrypts and authenticates an SRTP packet in place; `length` shrinks.
    public func unprotectRTP(_ buffer: UnsafeMutableRawPointer, length: inout Int) -> Bool {
        guard length >= 12, length <= Int(Int32.max) else { return fail(.malformed) }
        let failure = openSSL?.unprotectRTP(buffer, length: &length)
            ?? libsrtp.unsafelyUnwrapped.unprotectRTP(buffer, length: &length)
        return finish(failure)
    }

    /// Encrypts an RTCP compound packet in place; `length` grows by the index and tag.
    public func protectRTCP(_ buffer: UnsafeMutableRawPointer, length: inout Int, capacity: Int) -> Bool {
        guard length >= 8, length <= Int(Int32.max) else { return fail(.malformed) }
        guard capacity >= length + SRTPSession.maxRTCPTrailer else { return fail(.bufferTooSmall) }
        let failure = openSSL?.protectRTCP(buffer, length: &length)
            ?? libsrtp.unsafelyUnwrapped.protectRTCP(buffer, length: &length)
        return finish(failure)
    }

    /// Decrypts and authenticates an SRTCP packet in place; `length` shrinks.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawPointer, length: inout Int) -> Bool {
        guard length >= 8, length <= Int(Int32.max) else { return fail(.malformed) }
        let failure = openSSL?.unprotectRTCP(buffer, length: &length)
            ?? libsrtp.unsafelyUnwrapped.unprotectRTCP(buffer, length: &length)
        return finish(failure)
    }

    @inline(__always)
    private func finish(_ failure: SRTPFailure) -> Bool {
        if case .none = failure { return true }
        return fail(failure)
    }

    private func fail(_ failure: SRTPFailure) -> Bool {
        failures.pointee.last = failure
        switch failure {
        case .none: break
        case .malformed: failures.pointee.counts.malformed += 1
        case .authentication: failures.pointee.counts.authentication += 1
        case .replay, .replayTooOld: failures.pointee.counts.replay += 1
        case .bufferTooSmall, .other: failures.pointee.counts.other += 1
        }
        return false
    }
}
