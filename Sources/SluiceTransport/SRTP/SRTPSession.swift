import CSRTP

/// Why libsrtp refused a packet; a caller counts these per kind.
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
    case other(UInt32)
}

/// One direction of SRTP/SRTCP for one transport: an owned libsrtp session that protects or
/// unprotects packets in place in the caller's buffer, with no allocation per packet.
/// Any SSRC is accepted (libsrtp creates its per-SSRC stream state on first use).
///
/// Not thread-safe: a session belongs to one worker.
public final class SRTPSession {
    public enum Direction: Sendable { case inbound, outbound }

    /// Replay window: large, because a forwarder's retransmissions arrive far out of order.
    public static let replayWindowSize = 1024
    /// What `protectRTP` may add; `protectRTCP` adds 4 more (the SRTCP index).
    public static let maxRTPTrailer = Int(SRTP_MAX_TRAILER_LEN)
    public static let maxRTCPTrailer = Int(SRTP_MAX_TRAILER_LEN) + 4

    public let profile: SRTPProfile
    public let direction: Direction
    /// The reason of the most recent failed call.
    public private(set) var lastFailure = SRTPFailure.none

    private var session: srtp_t?

    public struct InitError: Error, Equatable {
        public let status: UInt32
    }

    public init(profile: SRTPProfile, key: [UInt8], salt: [UInt8], direction: Direction) throws {
        SRTPLibrary.initialize()
        guard key.count == profile.keyLength, salt.count == profile.saltLength else {
            throw InitError(status: srtp_err_status_bad_param.rawValue)
        }
        self.profile = profile
        self.direction = direction

        var policy = srtp_policy_t()
        switch profile {
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aes128CMHMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        }
        policy.ssrc.type = direction == .inbound ? ssrc_any_inbound : ssrc_any_outbound
        policy.window_size = UInt(SRTPSession.replayWindowSize)
        // A retransmission re-sends the same sequence number with the same payload.
        policy.allow_repeat_tx = 1
        policy.next = nil

        // libsrtp copies the master key during srtp_create, so this buffer may go afterwards.
        var master = key + salt
        var created: srtp_t?
        let status = master.withUnsafeMutableBufferPointer { buffer -> srtp_err_status_t in
            policy.key = buffer.baseAddress
            return srtp_create(&created, &policy)
        }
        for i in master.indices { master[i] = 0 }
        guard status == srtp_err_status_ok, let created else { throw InitError(status: status.rawValue) }
        session = created
    }

    deinit {
        if let session { srtp_dealloc(session) }
    }

    /// Encrypts an RTP packet in place; `length` grows by the auth tag.
    /// Called with 1 before and 0 after each libsrtp RTP call. Nil in production; the
    /// allocation test uses it to tell libsrtp's allocations from Sluice's own.
    public static var libraryCallProbe: PacketPathProbes.Probe? {
        get { PacketPathProbes.slots[PacketPathProbes.libraryCall] }
        set { PacketPathProbes.slots[PacketPathProbes.libraryCall] = newValue }
    }
    /// `PacketPathProbes.slots`, read once here, so a packet reads an instance constant.
    private let probes = PacketPathProbes.slots

    public func protectRTP(_ buffer: UnsafeMutableRawPointer, length: inout Int, capacity: Int) -> Bool {
        guard length >= 12 else { return fail(.malformed) }
        guard capacity >= length + SRTPSession.maxRTPTrailer else { return fail(.bufferTooSmall) }
        var size = Int32(length)
        probes[PacketPathProbes.libraryCall]?(1)
        let status = srtp_protect(session, buffer, &size)
        probes[PacketPathProbes.libraryCall]?(0)
        return finish(status, size: size, length: &length)
    }

    /// Decrypts and authenticates an SRTP packet in place; `length` shrinks.
    public func unprotectRTP(_ buffer: UnsafeMutableRawPointer, length: inout Int) -> Bool {
        guard length >= 12, length <= Int(Int32.max) else { return fail(.malformed) }
        var size = Int32(length)
        probes[PacketPathProbes.libraryCall]?(1)
        let status = srtp_unprotect(session, buffer, &size)
        probes[PacketPathProbes.libraryCall]?(0)
        return finish(status, size: size, length: &length)
    }

    /// Encrypts an RTCP compound packet in place; `length` grows by the index and tag.
    public func protectRTCP(_ buffer: UnsafeMutableRawPointer, length: inout Int, capacity: Int) -> Bool {
        guard length >= 8 else { return fail(.malformed) }
        guard capacity >= length + SRTPSession.maxRTCPTrailer else { return fail(.bufferTooSmall) }
        var size = Int32(length)
        let status = srtp_protect_rtcp(session, buffer, &size)
        return finish(status, size: size, length: &length)
    }

    /// Decrypts and authenticates an SRTCP packet in place; `length` shrinks.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawPointer, length: inout Int) -> Bool {
        guard length >= 8, length <= Int(Int32.max) else { return fail(.malformed) }
        var size = Int32(length)
        let status = srtp_unprotect_rtcp(session, buffer, &size)
        return finish(status, size: size, length: &length)
    }

    @inline(__always)
    private func finish(_ status: srtp_err_status_t, size: Int32, length: inout Int) -> Bool {
        guard status == srtp_err_status_ok else { return fail(SRTPSession.failure(for: status)) }
        length = Int(size)
        return true
    }

    @inline(__always)
    private func fail(_ failure: SRTPFailure) -> Bool {
        lastFailure = failure
        return false
    }

    static func failure(for status: srtp_err_status_t) -> SRTPFailure {
        switch status {
        case srtp_err_status_auth_fail: return .authentication
        case srtp_err_status_replay_fail: return .replay
        case srtp_err_status_replay_old: return .replayTooOld
        case srtp_err_status_bad_param, srtp_err_status_parse_err: return .malformed
        default: return .other(status.rawValue)
        }
    }
}
