import COpenSSL
import CSRTP

/// Sluice's own SRTP and SRTCP (RFC 3711, RFC 7714) over OpenSSL's EVP, for one direction of
/// one transport: the session keys derived once, one cipher context per packet kind kept for
/// the session, the per-SSRC indices and replay windows in a table allocated with it.
/// Nothing here allocates per packet, takes a lock, or goes through an existential.
///
/// It produces the same bytes as libsrtp with the policy `LibSRTPContext` sets (any SSRC,
/// `allow_repeat_tx`, 1024-packet replay window), which the tests check packet by packet.
/// Unlike libsrtp it keeps the replay window of SRTCP as wide as RTP's (libsrtp: 128).
///
/// Each method returns `.none` on success or why the packet was refused; the packet is in
/// place in the caller's buffer, which has been checked for room by `SRTPSession`.
final class OpenSSLSRTPContext {
    let profile: SRTPProfile
    let direction: SRTPSession.Direction
    let streams: SRTPStreamTable
    let rtp: OpenSSLPacketCipher
    let rtcp: OpenSSLPacketCipher
    /// 64 bytes of per-packet scratch: the IV at 0, the ROC or SRTCP word at 16, the HMAC
    /// digest at 32.
    let scratch: UnsafeMutableRawPointer
    let isGCM: Bool
    /// The authentication tag: GCM's 16 bytes, or HMAC-SHA1 cut to 80 bits.
    let tagLength: Int

    static let gcmTagLength = 16
    static let hmacTagLength = 10
    /// The E flag and SRTCP index word.
    static let srtcpIndexLength = 4
    static let maxSRTCPIndex: UInt64 = 0x7FFF_FFFF

    convenience init?(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8], direction: SRTPSession.Direction) {
        guard var keys = SRTPKeyDerivation.sessionKeys(profile: profile, masterKey: masterKey, masterSalt: masterSalt)
        else { return nil }
        defer { keys.wipe() }
        self.init(profile: profile, keys: keys, direction: direction)
    }

    /// From session keys as they are (the RFC 7714 vectors give session keys, not master keys).
    init?(profile: SRTPProfile, keys: SRTPSessionKeys, direction: SRTPSession.Direction) {
        guard let rtp = OpenSSLPacketCipher(profile: profile, key: keys.rtpKey, salt: keys.rtpSalt, authKey: keys.rtpAuthKey),
              let rtcp = OpenSSLPacketCipher(profile: profile, key: keys.rtcpKey, salt: keys.rtcpSalt,
                                             authKey: keys.rtcpAuthKey)
        else { return nil }
        self.profile = profile
        self.direction = direction
        self.rtp = rtp
        self.rtcp = rtcp
        isGCM = profile == .aeadAES128GCM
        tagLength = isGCM ? Self.gcmTagLength : Self.hmacTagLength
        streams = SRTPStreamTable(keepsWindows: direction == .inbound)
        scratch = .allocate(byteCount: 64, alignment: 16)
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
    }

    deinit {
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
        scratch.deallocate()
    }

    /// A cipher or OpenSSL failure, in libsrtp's words.
    static let cipherFailure = SRTPFailure.other(srtp_err_status_cipher_fail.rawValue)
    /// Protect on an inbound session or unprotect on an outbound one: each session has one
    /// direction (replay windows exist only on the inbound side).
    static let wrongDirection = SRTPFailure.other(srtp_err_status_bad_param.rawValue)

    // MARK: RTP

    func protectRTP(_ packet: UnsafeMutableRawPointer, length: inout Int) -> SRTPFailure {
        guard direction == .outbound else { return Self.wrongDirection }
        let (headerLength, sequence, ssrc) = Self.rtpHeader(packet, length: length)
        guard headerLength >= 0 else { return .malformed }
        var slot = streams.find(ssrc)
        if slot < 0 { slot = streams.insert(ssrc) }
        let stream = streams.stream(slot)
        let index: UInt64
        if stream.pointee.flags & SRTPStream.hasRTP == 0 {
            index = UInt64(sequence)
            stream.pointee.flags |= SRTPStream.hasRTP
            stream.pointee.rtpHighest = index
        } else {
            index = SRTPIndexTracker.estimate(sequence: sequence, highest: stream.pointee.rtpHighest)
            if index > stream.pointee.rtpHighest {
                stream.pointee.rtpHighest = index
            } else if stream.pointee.rtpHighest - index >= SRTPReplayWindow.width {
                return .replayTooOld
            }
            // An index at or below the highest is a retransmission: the same sequence number
            // with the same payload (libsrtp's allow_repeat_tx), so the same keystream is safe.
        }
        let payload = packet + headerLength
        let payloadLength = length - headerLength
        let roc = SRTPIndexTracker.rolloverCounter(of: index)
        if isGCM {
            writeGCMIV(rtp.salt, ssrc: ssrc, high: roc, low: UInt32(sequence))
            guard rtp.begin(iv: scratch, encrypt: true, clear: packet, clearCount: headerLength, body: payload,
                            count: payloadLength),
                  rtp.finishSealing(tag: packet + length)
            else { return Self.cipherFailure }
        } else {
            writeCounterIV(rtp.salt, ssrc: ssrc, index: index)
            guard rtp.begin(iv: scratch, encrypt: true, clear: packet, clearCount: 0, body: payload, count: payloadLength)
            else { return Self.cipherFailure }
            scratch.storeBytes(of: roc.bigEndian, toByteOffset: 16, as: UInt32.self)
            rtp.mac(packet, count: length, suffix: scratch + 16, suffixCount: 4, digest: scratch + 32)
            (packet + length).copyMemory(from: scratch + 32, byteCount: Self.hmacTagLength)
        }
        length += tagLength
        return .none
    }

    func unprotectRTP(_ packet: UnsafeMutableRawPointer, length: inout Int) -> SRTPFailure {
        guard direction == .inbound else { return Self.wrongDirection }
        let bodyLength = length - tagLength
        let (headerLength, sequence, ssrc) = Self.rtpHeader(packet, length: bodyLength)
        guard headerLength >= 0 else { return .malformed }
        let slot = streams.find(ssrc)
        let known = slot >= 0 && streams.stream(slot).pointee.flags & SRTPStream.hasRTP != 0
        var index = UInt64(sequence)
        if known {
            let highest = streams.stream(slot).pointee.rtpHighest
            index = SRTPIndexTracker.estimate(sequence: sequence, highest: highest)
            let replay = streams.rtpWindow(slot).check(index, highest: highest)
            guard case .none = replay else { return replay }
        }
        let payload = packet + headerLength
        let payloadLength = bodyLength - headerLength
        let roc = SRTPIndexTracker.rolloverCounter(of: index)
        if isGCM {
            writeGCMIV(rtp.salt, ssrc: ssrc, high: roc, low: UInt32(sequence))
            guard rtp.begin(iv: scratch, encrypt: false, clear: packet, clearCount: headerLength, body: payload,
                            count: payloadLength)
            else { return Self.cipherFailure }
            guard rtp.finishOpening(tag: packet + bodyLength) else { return .authentication }
        } else {
            scratch.storeBytes(of: roc.bigEndian, toByteOffset: 16, as: UInt32.self)
            rtp.mac(packet, count: bodyLength, suffix: scratch + 16, suffixCount: 4, digest: scratch + 32)
            guard CRYPTO_memcmp(scratch + 32, packet + bodyLength, Self.hmacTagLength) == 0 else { return .authentication }
            writeCounterIV(rtp.salt, ssrc: ssrc, index: index)
            guard rtp.begin(iv: scratch, encrypt: false, clear: packet, clearCount: 0, body: payload, count: payloadLength)
            else { return Self.cipherFailure }
        }
        // Authenticated: only now may the packet change the SSRC's state.
        if known {
            streams.rtpWindow(slot).accept(index, highest: &streams.stream(slot).pointee.rtpHighest)
        } else {
            let fresh = slot >= 0 ? slot : streams.insert(ssrc)
            let stream = streams.stream(fresh)
            stream.pointee.flags |= SRTPStream.hasRTP
            streams.rtpWindow(fresh).start(at: index, highest: &stream.pointee.rtpHighest)
        }
        length = bodyLength
        return .none
    }

    /// The RTP header's length with its CSRCs and extension (-1 when it does not fit in
    /// `length` bytes, or `length` is under 12), sequence number and SSRC.
    @inline(__always)
    static func rtpHeader(_ packet: UnsafeRawPointer, length: Int) -> (length: Int, sequence: UInt16, ssrc: UInt32) {
        let header = rtpHeaderLength(packet, length: length)
        guard header >= 0 else { return (-1, 0, 0) }
        return (header, UInt16(bigEndian: packet.loadUnaligned(fromByteOffset: 2, as: UInt16.self)),
                UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
    }

    @inline(__always)
    static func rtpHeaderLength(_ packet: UnsafeRawPointer, length: Int) -> Int {
        guard length >= 12 else { return -1 }
        let first = packet.load(as: UInt8.self)
        var header = 12 + 4 * Int(first & 0x0F)
        if first & 0x10 != 0 {
            guard header + 4 <= length else { return -1 }
            let words = UInt16(bigEndian: packet.loadUnaligned(fromByteOffset: header + 2, as: UInt16.self))
            header += 4 + 4 * Int(words)
        }
        return header <= length ? header : -1
    }

    // MARK: IVs (into scratch)

    /// RFC 7714 sections 8.1 and 9.1: 00 00 | SSRC | high 32 bits | low 16 bits (RTP: ROC and
    /// sequence number; SRTCP: 16 zero bits and the 31-bit index), XOR the 12-byte salt.
    @inline(__always)
    func writeGCMIV(_ salt: UnsafeMutableRawPointer, ssrc: UInt32, high: UInt32, low: UInt32) {
        let first = UInt64(ssrc) << 16 | UInt64(high >> 16)
        let second = (high & 0xFFFF) << 16 | (low & 0xFFFF)
        scratch.storeBytes(of: first.bigEndian ^ salt.load(as: UInt64.self), as: UInt64.self)
        scratch.storeBytes(of: second.bigEndian ^ salt.load(fromByteOffset: 8, as: UInt32.self),
                           toByteOffset: 8, as: UInt32.self)
    }

    /// SRTCP's GCM IV: the index in the last 32 bits, 16 zero bits before it.
    @inline(__always)
    func writeGCMIV(_ salt: UnsafeMutableRawPointer, ssrc: UInt32, srtcpIndex: UInt32) {
        scratch.storeBytes(of: (UInt64(ssrc) << 16).bigEndian ^ salt.load(as: UInt64.self), as: UInt64.self)
        scratch.storeBytes(of: srtcpIndex.bigEndian ^ salt.load(fromByteOffset: 8, as: UInt32.self),
                           toByteOffset: 8, as: UInt32.self)
    }

    /// RFC 3711 section 4.1.1: (salt * 2^16) XOR (SSRC * 2^64) XOR (index * 2^16), the block
    /// counter in the last 16 bits.
    @inline(__always)
    func writeCounterIV(_ salt: UnsafeMutableRawPointer, ssrc: UInt32, index: UInt64) {
        scratch.storeBytes(of: UInt64(ssrc).bigEndian ^ salt.load(as: UInt64.self), as: UInt64.self)
        scratch.storeBytes(of: (index << 16).bigEndian ^ salt.load(fromByteOffset: 8, as: UInt64.self),
                           toByteOffset: 8, as: UInt64.self)
    }
}
