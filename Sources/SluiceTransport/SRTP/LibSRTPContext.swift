import CSRTP

/// One direction of SRTP/SRTCP on Debian's libsrtp2 (built on NSS): the fallback back end
/// (`rtc.srtp: "libsrtp"`) and the tests' reference. libsrtp creates a stream per SSRC on
/// first use (`ssrc_any_*`), allowing retransmissions on the sending side.
final class LibSRTPContext {
    private let session: srtp_t
    /// `PacketPathProbes.slots`, read once here, so a packet reads an instance constant.
    private let probes = PacketPathProbes.slots

    init(profile: SRTPProfile, key: [UInt8], salt: [UInt8], direction: SRTPSession.Direction) throws {
        SRTPLibrary.initialize()
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
        guard status == srtp_err_status_ok, let created else { throw SRTPSession.InitError(status: status.rawValue) }
        session = created
    }

    deinit {
        srtp_dealloc(session)
    }

    /// srtp_protect, srtp_unprotect and their RTCP twins: (session, packet, length in and out).
    typealias Transform = @convention(c) (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t

    func protectRTP(_ buffer: UnsafeMutableRawPointer, length: inout Int) -> SRTPFailure {
        run(srtp_protect, buffer, &length, probed: true)
    }

    func unprotectRTP(_ buffer: UnsafeMutableRawPointer, length: inout Int) -> SRTPFailure {
        run(srtp_unprotect, buffer, &length, probed: true)
    }

    func protectRTCP(_ buffer: UnsafeMutableRawPointer, length: inout Int) -> SRTPFailure {
        run(srtp_protect_rtcp, buffer, &length, probed: false)
    }

    func unprotectRTCP(_ buffer: UnsafeMutableRawPointer, length: inout Int) -> SRTPFailure {
        run(srtp_unprotect_rtcp, buffer, &length, probed: false)
    }

    /// One libsrtp call; `probed`: RTP, which the allocation test watches (`libraryCallProbe`).
    @inline(__always)
    private func run(_ transform: Transform, _ buffer: UnsafeMutableRawPointer, _ length: inout Int,
                     probed: Bool) -> SRTPFailure {
        var size = Int32(length)
        if probed { probes[PacketPathProbes.libraryCall]?(1) }
        let status = transform(session, buffer, &size)
        if probed { probes[PacketPathProbes.libraryCall]?(0) }
        guard status == srtp_err_status_ok else { return Self.failure(for: status) }
        length = Int(size)
        return .none
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
