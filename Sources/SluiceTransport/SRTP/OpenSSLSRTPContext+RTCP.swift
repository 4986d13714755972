import COpenSSL
import CSRTP

/// SRTCP (RFC 3711 section 3.4, RFC 7714 section 9): the 8-byte header and sender SSRC stay
/// in clear, the rest is encrypted, and a word with the E flag and the 31-bit SRTCP index
/// goes with the tag. AES-CM: packet | E+index | tag (10). GCM: packet | tag (16) | E+index,
/// with the header and the word as authenticated data.
extension OpenSSLSRTPContext {
    /// E set: Sluice always encrypts SRTCP.
    static let encryptedFlag: UInt32 = 0x8000_0000

    func protectRTCP(_ packet: UnsafeMutableRawPointer, length: inout Int) -> SRTPFailure {
        guard direction == .outbound else { return Self.wrongDirection }
        guard length >= 8 else { return .malformed }
        let ssrc = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        var slot = streams.find(ssrc)
        if slot < 0 { slot = streams.insert(ssrc) }
        let stream = streams.stream(slot)
        if stream.pointee.flags & SRTPStream.hasRTCP == 0 {
            stream.pointee.flags |= SRTPStream.hasRTCP
            stream.pointee.rtcpHighest = 0
        }
        // One index per protected packet per SSRC, from 1, as libsrtp counts; 2^31 - 1 packets
        // need a new key (libsrtp's key_expired).
        guard stream.pointee.rtcpHighest < Self.maxSRTCPIndex else { return .other(srtp_err_status_key_expired.rawValue) }
        stream.pointee.rtcpHighest += 1
        let index = UInt32(truncatingIfNeeded: stream.pointee.rtcpHighest)
        let word = (Self.encryptedFlag | index).bigEndian
        let body = packet + 8
        if isGCM {
            let wordAt = packet + length + Self.gcmTagLength
            wordAt.storeBytes(of: word, as: UInt32.self)
            writeGCMIV(rtcp.salt, ssrc: ssrc, srtcpIndex: index)
            guard rtcp.start(iv: scratch, encrypt: true), rtcp.authenticateOnly(packet, count: 8),
                  rtcp.authenticateOnly(wordAt, count: Self.srtcpIndexLength),
                  rtcp.transform(body, count: length - 8), rtcp.finishSealing(tag: packet + length)
            else { return Self.cipherFailure }
            length += Self.gcmTagLength + Self.srtcpIndexLength
        } else {
            writeCounterIV(rtcp.salt, ssrc: ssrc, index: UInt64(index))
            guard rtcp.begin(iv: scratch, encrypt: true, clear: packet, clearCount: 0, body: body, count: length - 8)
            else { return Self.cipherFailure }
            (packet + length).storeBytes(of: word, as: UInt32.self)
            length += Self.srtcpIndexLength
            rtcp.mac(packet, count: length, suffix: scratch, suffixCount: 0, digest: scratch + 32)
            (packet + length).copyMemory(from: scratch + 32, byteCount: Self.hmacTagLength)
            length += Self.hmacTagLength
        }
        return .none
    }

    func unprotectRTCP(_ packet: UnsafeMutableRawPointer, length: inout Int) -> SRTPFailure {
        guard direction == .inbound else { return Self.wrongDirection }
        let trailer = tagLength + Self.srtcpIndexLength
        guard length >= 8 + trailer else { return .malformed }
        let bodyLength = length - trailer
        let wordAt = isGCM ? packet + length - Self.srtcpIndexLength : packet + bodyLength
        let word = UInt32(bigEndian: wordAt.loadUnaligned(as: UInt32.self))
        let encrypted = word & Self.encryptedFlag != 0
        let index = word & ~Self.encryptedFlag
        let ssrc = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let slot = streams.find(ssrc)
        let known = slot >= 0 && streams.stream(slot).pointee.flags & SRTPStream.hasRTCP != 0
        if known {
            let replay = streams.rtcpWindow(slot).check(UInt64(index), highest: streams.stream(slot).pointee.rtcpHighest)
            guard case .none = replay else { return replay }
        }
        let body = packet + 8
        if isGCM {
            writeGCMIV(rtcp.salt, ssrc: ssrc, srtcpIndex: index)
            guard rtcp.start(iv: scratch, encrypt: false) else { return Self.cipherFailure }
            // E clear (RFC 7714 section 9.3): the whole packet is authenticated, nothing encrypted.
            let clear = encrypted ? 8 : bodyLength
            guard rtcp.authenticateOnly(packet, count: clear), rtcp.authenticateOnly(wordAt, count: Self.srtcpIndexLength),
                  rtcp.transform(body, count: encrypted ? bodyLength - 8 : 0)
            else { return Self.cipherFailure }
            guard rtcp.finishOpening(tag: packet + bodyLength) else { return .authentication }
        } else {
            rtcp.mac(packet, count: bodyLength + Self.srtcpIndexLength, suffix: scratch, suffixCount: 0, digest: scratch + 32)
            let tag = packet + bodyLength + Self.srtcpIndexLength
            guard CRYPTO_memcmp(scratch + 32, tag, Self.hmacTagLength) == 0 else { return .authentication }
            if encrypted {
                writeCounterIV(rtcp.salt, ssrc: ssrc, index: UInt64(index))
                guard rtcp.begin(iv: scratch, encrypt: false, clear: packet, clearCount: 0, body: body, count: bodyLength - 8)
                else { return Self.cipherFailure }
            }
        }
        if known {
            streams.rtcpWindow(slot).accept(UInt64(index), highest: &streams.stream(slot).pointee.rtcpHighest)
        } else {
            let fresh = slot >= 0 ? slot : streams.insert(ssrc)
            let stream = streams.stream(fresh)
            stream.pointee.flags |= SRTPStream.hasRTCP
            streams.rtcpWindow(fresh).start(at: UInt64(index), highest: &stream.pointee.rtcpHighest)
        }
        length = bodyLength
        return .none
    }

    /// Sets the last SRTCP index sent for `ssrc`, so the next packet carries `index + 1`: the
    /// RFC 7714 vectors start mid-session. Tests only.
    func setLastSRTCPIndex(_ index: UInt32, ssrc: UInt32) {
        var slot = streams.find(ssrc)
        if slot < 0 { slot = streams.insert(ssrc) }
        streams.stream(slot).pointee.flags |= SRTPStream.hasRTCP
        streams.stream(slot).pointee.rtcpHighest = UInt64(index)
    }
}
