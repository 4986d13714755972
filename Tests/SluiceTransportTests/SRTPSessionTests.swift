import Testing
@testable import SluiceTransport

@Suite struct SRTPSessionTests {
    /// libsrtp's published known-answer vectors (test/srtp_driver.c, srtp_validate and
    /// srtp_validate_gcm): SSRC 0xcafebabe, sequence 0x1234, payload of 16 0xab bytes.
    enum Vector {
        static let rtpPlaintext = hexBytes("80 0f 12 34 de ca fb ad ca fe ba be" + String(repeating: " ab", count: 16))
        static let rtcpPlaintext = hexBytes("81 c8 00 0b ca fe ba be" + String(repeating: " ab", count: 16))

        // AES_CM_128_HMAC_SHA1_80
        static let cmKey = hexBytes("e1 f9 7a 0d 3e 01 8b e0 d6 4f a3 2c 06 de 41 39")
        static let cmSalt = hexBytes("0e c6 75 ad 49 8a fe eb b6 96 0b 3a ab e6")
        static let cmRTPCiphertext = hexBytes("""
            80 0f 12 34 de ca fb ad ca fe ba be
            4e 55 dc 4c e7 99 78 d8 8c a4 d2 15 94 9d 24 02
            b7 8d 6a cc 99 ea 17 9b 8d bb
            """)  // 10-byte HMAC-SHA1 tag last
        static let cmRTCPCiphertext = hexBytes("""
            81 c8 00 0b ca fe ba be
            71 28 03 5b e4 87 b9 bd be f8 90 41 f9 77 a5 a8
            80 00 00 01  99 3e 08 cd 54 d6 c1 23 07 98
            """)  // E flag + SRTCP index 1, then the tag

        // AEAD_AES_128_GCM
        static let gcmKey = hexBytes("00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f")
        static let gcmSalt = hexBytes("a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab")
        static let gcmRTPCiphertext = hexBytes("""
            80 0f 12 34 de ca fb ad ca fe ba be
            c5 00 2e de 04 cf dd 2e b9 11 59 e0 88 0a a0 6e
            d2 97 68 26 f7 96 b2 01 df 31 31 a1 27 e8 a3 92
            """)  // 16-byte GCM tag last
        static let gcmRTCPCiphertext = hexBytes("""
            81 c8 00 0b ca fe ba be
            c9 8b 8b 5d f0 39 2a 55 85 2b 6c 21 ac 8e 70 25
            c5 2c 6f be a2 b3 b4 46 ea 31 12 3b a8 8c e6 1e
            80 00 00 01
            """)  // tag, then E flag + SRTCP index 1
    }

    func vector(_ profile: SRTPProfile) -> (key: [UInt8], salt: [UInt8], rtp: [UInt8], rtcp: [UInt8]) {
        switch profile {
        case .aes128CMHMACSHA1_80: return (Vector.cmKey, Vector.cmSalt, Vector.cmRTPCiphertext, Vector.cmRTCPCiphertext)
        case .aeadAES128GCM: return (Vector.gcmKey, Vector.gcmSalt, Vector.gcmRTPCiphertext, Vector.gcmRTCPCiphertext)
        }
    }

    @Test(arguments: SRTPBackend.allCases, SRTPProfile.allCases)
    func knownAnswerProtect(backend: SRTPBackend, profile: SRTPProfile) throws {
        let v = vector(profile)
        let sender = try SRTPSession(profile: profile, key: v.key, salt: v.salt, direction: .outbound, backend: backend)
        #expect(srtpInPlace(Vector.rtpPlaintext) { sender.protectRTP($0, length: &$1, capacity: $2) } == v.rtp)
        #expect(srtpInPlace(Vector.rtcpPlaintext) { sender.protectRTCP($0, length: &$1, capacity: $2) } == v.rtcp)
    }

    @Test(arguments: SRTPBackend.allCases, SRTPProfile.allCases)
    func knownAnswerUnprotect(backend: SRTPBackend, profile: SRTPProfile) throws {
        let v = vector(profile)
        let receiver = try SRTPSession(profile: profile, key: v.key, salt: v.salt, direction: .inbound, backend: backend)
        #expect(srtpInPlace(v.rtp) { p, l, _ in receiver.unprotectRTP(p, length: &l) } == Vector.rtpPlaintext)
        #expect(srtpInPlace(v.rtcp) { p, l, _ in receiver.unprotectRTCP(p, length: &l) } == Vector.rtcpPlaintext)
    }

    @Test(arguments: SRTPBackend.allCases, SRTPProfile.allCases)
    func tamperedTagIsRejected(backend: SRTPBackend, profile: SRTPProfile) throws {
        let v = vector(profile)
        let receiver = try SRTPSession(profile: profile, key: v.key, salt: v.salt, direction: .inbound, backend: backend)
        var tampered = v.rtp
        tampered[tampered.count - 1] ^= 0x01
        #expect(srtpInPlace(tampered) { p, l, _ in receiver.unprotectRTP(p, length: &l) } == nil)
        #expect(receiver.lastFailure == .authentication)
        // The genuine packet still passes afterwards: a forgery does not poison the replay window.
        #expect(srtpInPlace(v.rtp) { p, l, _ in receiver.unprotectRTP(p, length: &l) } == Vector.rtpPlaintext)
    }

    @Test(arguments: SRTPBackend.allCases, SRTPProfile.allCases)
    func replayIsRejected(backend: SRTPBackend, profile: SRTPProfile) throws {
        let v = vector(profile)
        let receiver = try SRTPSession(profile: profile, key: v.key, salt: v.salt, direction: .inbound, backend: backend)
        #expect(srtpInPlace(v.rtp) { p, l, _ in receiver.unprotectRTP(p, length: &l) } != nil)
        #expect(srtpInPlace(v.rtp) { p, l, _ in receiver.unprotectRTP(p, length: &l) } == nil)
        #expect(receiver.lastFailure == .replay)
        #expect(srtpInPlace(v.rtcp) { p, l, _ in receiver.unprotectRTCP(p, length: &l) } != nil)
        #expect(srtpInPlace(v.rtcp) { p, l, _ in receiver.unprotectRTCP(p, length: &l) } == nil)
        #expect(receiver.lastFailure == .replay)
    }

    @Test(arguments: SRTPBackend.allCases, SRTPProfile.allCases)
    func roundTripsManyPacketsAndAllowsRetransmission(backend: SRTPBackend, profile: SRTPProfile) throws {
        let key = (0..<profile.keyLength).map { UInt8($0 * 7 & 0xFF) }
        let salt = (0..<profile.saltLength).map { UInt8($0 * 13 & 0xFF) }
        let sender = try SRTPSession(profile: profile, key: key, salt: salt, direction: .outbound, backend: backend)
        let receiver = try SRTPSession(profile: profile, key: key, salt: salt, direction: .inbound, backend: backend)
        for sequence in [UInt16(100), 101, 103, 102, 500] {
            let packet: [UInt8] = [0x80, 0x60, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x10, 0,
                                   0x11, 0x22, 0x33, 0x44] + (0..<200).map { UInt8($0 & 0xFF) }
            let protected = try #require(srtpInPlace(packet) { sender.protectRTP($0, length: &$1, capacity: $2) })
            #expect(protected.count == packet.count + (profile == .aeadAES128GCM ? 16 : 10))
            #expect(protected != packet)
            // Same sequence number protected again (a retransmission) must be allowed.
            #expect(srtpInPlace(packet) { sender.protectRTP($0, length: &$1, capacity: $2) } == protected)
            #expect(srtpInPlace(protected) { p, l, _ in receiver.unprotectRTP(p, length: &l) } == packet)
        }
    }

    @Test(arguments: SRTPBackend.allCases)
    func refusesSmallBuffersAndBadKeys(backend: SRTPBackend) throws {
        let sender = try SRTPSession(profile: .aeadAES128GCM, key: Vector.gcmKey, salt: Vector.gcmSalt, direction: .outbound, backend: backend)
        var buffer = Vector.rtpPlaintext
        var length = buffer.count
        let ok = buffer.withUnsafeMutableBytes { sender.protectRTP($0.baseAddress!, length: &length, capacity: $0.count) }
        #expect(!ok)
        #expect(sender.lastFailure == .bufferTooSmall)
        #expect(length == Vector.rtpPlaintext.count)
        #expect(throws: SRTPSession.InitError.self) {
            try SRTPSession(profile: .aeadAES128GCM, key: Vector.cmKey, salt: Vector.cmSalt, direction: .outbound, backend: backend)
        }
        let receiver = try SRTPSession(profile: .aeadAES128GCM, key: Vector.gcmKey, salt: Vector.gcmSalt, direction: .inbound, backend: backend)
        var short: [UInt8] = [0x80, 0, 0]
        var shortLength = short.count
        #expect(!short.withUnsafeMutableBytes { receiver.unprotectRTP($0.baseAddress!, length: &shortLength) })
        #expect(receiver.lastFailure == .malformed)
    }
}
