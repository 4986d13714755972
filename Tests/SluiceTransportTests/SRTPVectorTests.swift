import Testing
@testable import SluiceTransport

/// The RFCs' own vectors, for the pieces Sluice's SRTP is built from: RFC 3711 Appendix B.2
/// (the AES-CM keystream), B.3 (key derivation), and RFC 7714 sections 16 and 17 (SRTP and
/// SRTCP with AEAD_AES_128_GCM, from session keys).
@Suite struct SRTPVectorTests {
    // MARK: RFC 3711 Appendix B.2

    static let b2Key = hexBytes("2B7E151628AED2A6ABF7158809CF4F3C")
    static let b2Salt = hexBytes("F0F1F2F3F4F5F6F7F8F9FAFBFCFD")
    /// Keystream blocks by counter value.
    static let b2Blocks: [(counter: Int, block: [UInt8])] = [
        (0x0000, hexBytes("E03EAD0935C95E80E166B16DD92B4EB4")),
        (0x0001, hexBytes("D23513162B02D0F72A43A2FE4A5F97AB")),
        (0x0002, hexBytes("41E95B3BB0A2E8DD477901E4FCA894C0")),
        (0xFEFF, hexBytes("EC8CDF7398607CB0F2D21675EA9EA1E4")),
        (0xFF00, hexBytes("362B7C3C6773516318A077D7FC5073AE")),
        (0xFF01, hexBytes("6A2CC3787889374FBEB4C81B17BA6C44")),
    ]

    @Test func appendixB2Keystream() throws {
        // IV = salt * 2^16 with SSRC 0 and index 0: F0F1...FD0000.
        let iv = Self.b2Salt + [0, 0]
        let keystream = try #require(SRTPKeyDerivation.aesCounterKeystream(key: Self.b2Key, iv: iv, count: 0xFF02 * 16))
        for (counter, block) in Self.b2Blocks {
            #expect(Array(keystream[counter * 16..<(counter + 1) * 16]) == block, "block \(counter)")
        }
    }

    /// The same keystream through the packet path: an RTP packet with SSRC 0 and sequence 0
    /// (index 0) whose payload is zeros comes out as the keystream, so the IV is formed as
    /// section 4.1.1 says.
    @Test func appendixB2ThroughTheIVOfAPacket() throws {
        let keys = SRTPSessionKeys(rtpKey: Self.b2Key, rtpSalt: Self.b2Salt, rtpAuthKey: [UInt8](repeating: 1, count: 20),
                                   rtcpKey: Self.b2Key, rtcpSalt: Self.b2Salt, rtcpAuthKey: [UInt8](repeating: 1, count: 20))
        let context = try #require(OpenSSLSRTPContext(profile: .aes128CMHMACSHA1_80, keys: keys, direction: .outbound))
        let header: [UInt8] = [0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let (failure, protected) = context.apply(header + [UInt8](repeating: 0, count: 48)) { $0.protectRTP($1, length: &$2) }
        #expect(failure == .none)
        #expect(Array(protected[12..<60]) == Self.b2Blocks[0].block + Self.b2Blocks[1].block + Self.b2Blocks[2].block)
    }

    // MARK: RFC 3711 Appendix B.3

    @Test func appendixB3KeyDerivation() throws {
        let masterKey = hexBytes("E1F97A0D3E018BE0D64FA32C06DE4139")
        let masterSalt = hexBytes("0EC675AD498AFEEBB6960B3AABE6")
        func derive(_ label: SRTPKeyDerivation.Label, _ count: Int) -> [UInt8]? {
            SRTPKeyDerivation.key(label: label, masterKey: masterKey, masterSalt: masterSalt, count: count)
        }
        #expect(derive(.rtpEncryption, 16) == hexBytes("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(derive(.rtpSalt, 14) == hexBytes("30CBBC08863D8C85D49DB34A9AE1"))
        #expect(derive(.rtpAuthentication, 20) == hexBytes("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"))
        let keys = try #require(SRTPKeyDerivation.sessionKeys(profile: .aes128CMHMACSHA1_80, masterKey: masterKey,
                                                             masterSalt: masterSalt))
        #expect(keys.rtpKey == hexBytes("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(keys.rtpAuthKey.count == 20 && keys.rtcpAuthKey.count == 20 && keys.rtcpSalt.count == 14)
        #expect(keys.rtcpKey != keys.rtpKey)
        let gcm = try #require(SRTPKeyDerivation.sessionKeys(profile: .aeadAES128GCM, masterKey: masterKey,
                                                            masterSalt: Array(masterSalt.prefix(12))))
        #expect(gcm.rtpSalt.count == 12 && gcm.rtpAuthKey.isEmpty && gcm.rtcpAuthKey.isEmpty)
    }

    // MARK: RFC 7714 sections 16 and 17 (AEAD_AES_128_GCM)

    enum GCM {
        static let key = hexBytes("000102030405060708090a0b0c0d0e0f")
        /// "Quid pro quo".
        static let salt = hexBytes("517569642070726f2071756f")
        /// "Gallia est omnis divisa in partes tres": sequence 0xf17b, SSRC 0x5501a0b2, ROC 0.
        static let rtp = hexBytes("""
            8040f17b 8041f8d3 5501a0b2 47616c6c 69612065 7374206f 6d6e6973
            20646976 69736120 696e2070 61727465 73207472 6573
            """)
        static let srtp = hexBytes("""
            8040f17b 8041f8d3 5501a0b2 f24de3a3 fb34de6c acba861c 9d7e4bca
            be633bd5 0d294e6f 42a5f47a 51c7d19b 36de3adf 8833899d 7f27beb1
            6a9152cf 765ee439 0cce
            """)
        /// A sender report from SSRC 0x4d617273 ("Mars"), SRTCP index 0x5d4.
        static let rtcp = hexBytes("""
            81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930
            4c756e61 deadbeef deadbeef deadbeef deadbeef deadbeef
            """)
        static let srtcp = hexBytes("""
            81c8000d 4d617273 63e94885 dcdab67c a727d766 2f6b7e99 7ff5c0f7
            6c06f32d c676a5f1 730d6fda 4ce09b46 86303ded 0bb9275b c84aa458
            96cf4d2f c5abf872 45d9eade 800005d4
            """)
        /// The same report authenticated only (E = 0, section 17.3).
        static let srtcpUnencrypted = hexBytes("""
            81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930
            4c756e61 deadbeef deadbeef deadbeef deadbeef deadbeef 841dd968
            3dd78ec9 2ae58790 125f62b3 000005d4
            """)

        static func context(_ direction: SRTPSession.Direction) -> OpenSSLSRTPContext? {
            let keys = SRTPSessionKeys(rtpKey: key, rtpSalt: salt, rtpAuthKey: [], rtcpKey: key, rtcpSalt: salt, rtcpAuthKey: [])
            return OpenSSLSRTPContext(profile: .aeadAES128GCM, keys: keys, direction: direction)
        }
    }

    @Test func rfc7714SRTP() throws {
        let sender = try #require(GCM.context(.outbound))
        let (sealed, protected) = sender.apply(GCM.rtp) { $0.protectRTP($1, length: &$2) }
        #expect(sealed == .none)
        #expect(protected == GCM.srtp)
        let receiver = try #require(GCM.context(.inbound))
        let (opened, plain) = receiver.apply(GCM.srtp) { $0.unprotectRTP($1, length: &$2) }
        #expect(opened == .none)
        #expect(plain == GCM.rtp)
    }

    @Test func rfc7714SRTCP() throws {
        let sender = try #require(GCM.context(.outbound))
        sender.setLastSRTCPIndex(0x5D3, ssrc: 0x4D61_7273)
        let (sealed, protected) = sender.apply(GCM.rtcp) { $0.protectRTCP($1, length: &$2) }
        #expect(sealed == .none)
        #expect(protected == GCM.srtcp)
        let receiver = try #require(GCM.context(.inbound))
        let (opened, plain) = receiver.apply(GCM.srtcp) { $0.unprotectRTCP($1, length: &$2) }
        #expect(opened == .none)
        #expect(plain == GCM.rtcp)
    }

    @Test func rfc7714UnencryptedSRTCPIsAccepted() throws {
        let receiver = try #require(GCM.context(.inbound))
        let (opened, plain) = receiver.apply(GCM.srtcpUnencrypted) { $0.unprotectRTCP($1, length: &$2) }
        #expect(opened == .none)
        #expect(plain == GCM.rtcp)
        // The E flag is authenticated: the encrypted packet's flag cleared fails.
        var forged = GCM.srtcp
        forged[forged.count - 4] &= 0x7F
        let other = try #require(GCM.context(.inbound))
        #expect(other.apply(forged) { $0.unprotectRTCP($1, length: &$2) }.0 == .authentication)
    }
}
