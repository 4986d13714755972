import SluiceTransport

/// Sluice's SRTP on OpenSSL against what reaches it from the network. The first byte picks the
/// profile (bit 0), RTP or SRTCP (bit 1) and the mode (bit 2); the rest is the packet.
/// - Unprotect: the bytes, and every truncation of them, go to inbound sessions as they are.
///   Each is refused or comes out no longer than it went in; nothing traps.
/// - Round trip: the bytes are a plaintext packet, protected by fresh outbound sessions on
///   both back ends, which must agree (the same bytes, or both refuse). A fresh inbound session
///   must unprotect it to the plaintext, refuse it replayed, and refuse every truncation and a
///   bit flip chosen by the input.
let key = [UInt8](repeating: 0x5A, count: 16)
let salts: [SRTPProfile: [UInt8]] = [.aeadAES128GCM: [UInt8](repeating: 0xA5, count: 12),
                                     .aes128CMHMACSHA1_80: [UInt8](repeating: 0xA5, count: 14)]
let inbound = Dictionary(uniqueKeysWithValues: SRTPProfile.allCases.map { profile in
    (profile, try! SRTPSession(profile: profile, key: key, salt: salts[profile]!, direction: .inbound))
})
let capacity = 4096
let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity + SRTPSession.maxRTCPTrailer, alignment: 16)

/// Runs `body` on a copy of `bytes` in `buffer`; the resulting length, or nil if refused.
func onCopy(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeMutableRawPointer, inout Int) -> Bool) -> Int? {
    if bytes.count > 0 { buffer.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
    var length = bytes.count
    return body(buffer, &length) ? length : nil
}

func unprotect(_ session: SRTPSession, rtcp: Bool, _ buffer: UnsafeMutableRawPointer, _ length: inout Int) -> Bool {
    rtcp ? session.unprotectRTCP(buffer, length: &length) : session.unprotectRTP(buffer, length: &length)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSRTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1, size - 1 <= capacity else { return 0 }
    let flags = data[0]
    let profile: SRTPProfile = flags & 1 == 0 ? .aeadAES128GCM : .aes128CMHMACSHA1_80
    let rtcp = flags & 2 != 0
    let packet = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    if flags & 4 == 0 {
        let receiver = inbound[profile]!
        for cut in stride(from: packet.count, through: 0, by: -1) {
            let slice = UnsafeRawBufferPointer(rebasing: packet[0..<cut])
            if let length = onCopy(slice, { unprotect(receiver, rtcp: rtcp, $0, &$1) }) { precondition(length <= cut) }
        }
        return 0
    }
    roundTrip(profile: profile, rtcp: rtcp, packet, flip: size > 1 ? Int(data[size - 1]) : 0)
    return 0
}

func roundTrip(profile: SRTPProfile, rtcp: Bool, _ packet: UnsafeRawBufferPointer, flip: Int) {
    let salt = salts[profile]!
    let mine = try! SRTPSession(profile: profile, key: key, salt: salt, direction: .outbound, backend: .openSSL)
    let reference = try! SRTPSession(profile: profile, key: key, salt: salt, direction: .outbound, backend: .libsrtp)
    let receiver = try! SRTPSession(profile: profile, key: key, salt: salt, direction: .inbound, backend: .openSSL)
    func protect(_ session: SRTPSession) -> [UInt8]? {
        let room = capacity + SRTPSession.maxRTCPTrailer
        guard let length = onCopy(packet, { rtcp ? session.protectRTCP($0, length: &$1, capacity: room)
                                                 : session.protectRTP($0, length: &$1, capacity: room) })
        else { return nil }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
    let protected = protect(mine)
    let expected = protect(reference)
    precondition(protected == expected, "OpenSSL and libsrtp disagree: \(mine.lastFailure) / \(reference.lastFailure)")
    guard let protected else { return }
    // Forgeries first, while the receiver has seen nothing: a refusal must not change its state.
    protected.withUnsafeBytes { sealed in
        for cut in 0..<sealed.count {
            precondition(onCopy(UnsafeRawBufferPointer(rebasing: sealed[0..<cut])) { unprotect(receiver, rtcp: rtcp, $0, &$1) } == nil)
        }
    }
    var flipped = protected
    let bit = flip % (flipped.count * 8)
    flipped[bit / 8] ^= 1 << UInt8(bit % 8)
    let forged = flipped.withUnsafeBytes { onCopy($0) { unprotect(receiver, rtcp: rtcp, $0, &$1) } }
    precondition(forged == nil, "a flipped bit \(bit) passed")
    protected.withUnsafeBytes { sealed in
        let opened = onCopy(sealed) { unprotect(receiver, rtcp: rtcp, $0, &$1) }
        precondition(opened == packet.count && Array(UnsafeRawBufferPointer(start: buffer, count: packet.count)) == Array(packet),
                     "round trip changed the packet")
        precondition(onCopy(sealed) { unprotect(receiver, rtcp: rtcp, $0, &$1) } == nil && receiver.lastFailure == .replay)
    }
}
