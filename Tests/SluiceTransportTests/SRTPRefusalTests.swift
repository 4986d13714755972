import Testing
@testable import SluiceTransport

/// What an unprotecting session refuses, and why: replayed, truncated and bit-flipped packets,
/// on both back ends, each refused with its reason and counted, never crashing, and none of
/// them spoiling the session for the genuine packet afterwards.
@Suite struct SRTPRefusalTests {
    struct Fixture {
        let sender: SRTPSession
        let receiver: SRTPSession
        let rtp: [UInt8]
        let srtp: [UInt8]
        let rtcp: [UInt8]
        let srtcp: [UInt8]
        /// RTP header bytes (with CSRCs and extension) of `rtp`.
        let rtpHeader: Int

        init(backend: SRTPBackend, profile: SRTPProfile) throws {
            var generator = SplitMix(seed: 0xBAD_0000 + UInt64(profile.rawValue))
            let key = generator.bytes(profile.keyLength), salt = generator.bytes(profile.saltLength)
            sender = try SRTPSession(profile: profile, key: key, salt: salt, direction: .outbound, backend: backend)
            receiver = try SRTPSession(profile: profile, key: key, salt: salt, direction: .inbound, backend: backend)
            rtp = SRTPTestPackets.rtp(ssrc: 0x0102_0304, sequence: 7, payloadLength: 40, csrcs: 1, extensionWords: 1,
                                      using: &generator)
            rtpHeader = 12 + 4 + 8
            srtp = try #require(sender.protectedRTP(rtp))
            rtcp = SRTPTestPackets.rtcp(ssrc: 0x0102_0304, words: 6, using: &generator)
            srtcp = try #require(sender.protectedRTCP(rtcp))
        }
    }

    static let cases = SRTPBackend.allCases.flatMap { backend in SRTPProfile.allCases.map { (backend, $0) } }

    @Test(arguments: cases)
    func replaysAreRefusedAndCounted(backend: SRTPBackend, profile: SRTPProfile) throws {
        let f = try Fixture(backend: backend, profile: profile)
        #expect(f.receiver.unprotectedRTP(f.srtp) == f.rtp)
        #expect(f.receiver.unprotectedRTCP(f.srtcp) == f.rtcp)
        for _ in 0..<3 {
            #expect(f.receiver.unprotectedRTP(f.srtp) == nil)
            #expect(f.receiver.lastFailure == .replay)
            #expect(f.receiver.unprotectedRTCP(f.srtcp) == nil)
            #expect(f.receiver.lastFailure == .replay)
        }
        #expect(f.receiver.failureCounts == SRTPFailureCounts(replay: 6))
    }

    /// Every truncation of an SRTP and an SRTCP packet. The OpenSSL back end says why: too
    /// short for the header and tag is malformed, anything longer fails authentication.
    @Test(arguments: cases)
    func truncationsAreRefused(backend: SRTPBackend, profile: SRTPProfile) throws {
        let f = try Fixture(backend: backend, profile: profile)
        let tag = profile == .aeadAES128GCM ? 16 : 10
        for length in 0..<f.srtp.count {
            #expect(f.receiver.unprotectedRTP(Array(f.srtp.prefix(length))) == nil, "RTP cut to \(length)")
            guard backend == .openSSL else { continue }
            let expected: SRTPFailure = length < f.rtpHeader + tag ? .malformed : .authentication
            #expect(f.receiver.lastFailure == expected, "RTP cut to \(length)")
        }
        for length in 0..<f.srtcp.count {
            #expect(f.receiver.unprotectedRTCP(Array(f.srtcp.prefix(length))) == nil, "RTCP cut to \(length)")
            guard backend == .openSSL else { continue }
            let expected: SRTPFailure = length < 8 + 4 + tag ? .malformed : .authentication
            #expect(f.receiver.lastFailure == expected, "RTCP cut to \(length)")
        }
        let refused = UInt64(f.srtp.count + f.srtcp.count)
        #expect(f.receiver.failureCounts.total == refused)
        #expect(f.receiver.unprotectedRTP(f.srtp) == f.rtp)
        #expect(f.receiver.unprotectedRTCP(f.srtcp) == f.rtcp)
    }

    /// Every single-bit flip. A flip in the body or tag fails authentication; one in the first
    /// byte may instead make the header's CSRC count or extension overrun the packet.
    @Test(arguments: cases)
    func bitFlipsAreRefused(backend: SRTPBackend, profile: SRTPProfile) throws {
        let f = try Fixture(backend: backend, profile: profile)
        for bit in 0..<(f.srtp.count * 8) {
            var forged = f.srtp
            forged[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(f.receiver.unprotectedRTP(forged) == nil, "RTP bit \(bit)")
            if backend == .openSSL {
                let reason = f.receiver.lastFailure
                let headerShape = bit / 8 == 0 || (bit / 8 >= 16 && bit / 8 < 20)  // first byte, extension length
                #expect(reason == .authentication || (headerShape && reason == .malformed), "RTP bit \(bit): \(reason)")
            }
        }
        for bit in 0..<(f.srtcp.count * 8) {
            var forged = f.srtcp
            forged[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(f.receiver.unprotectedRTCP(forged) == nil, "RTCP bit \(bit)")
            if backend == .openSSL { #expect(f.receiver.lastFailure == .authentication, "RTCP bit \(bit)") }
        }
        #expect(f.receiver.failureCounts.total == UInt64(8 * (f.srtp.count + f.srtcp.count)))
        #expect(f.receiver.unprotectedRTP(f.srtp) == f.rtp)
        #expect(f.receiver.unprotectedRTCP(f.srtcp) == f.rtcp)
    }

    /// Random bytes shaped like RTP and RTCP: refused, never a crash.
    @Test(arguments: cases)
    func randomBytesAreRefused(backend: SRTPBackend, profile: SRTPProfile) throws {
        let f = try Fixture(backend: backend, profile: profile)
        var generator = SplitMix(seed: 0xF00D)
        for _ in 0..<2000 {
            var bytes = generator.bytes(Int.random(in: 0...300, using: &generator))
            if !bytes.isEmpty { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
            #expect(f.receiver.unprotectedRTP(bytes) == nil)
            #expect(f.receiver.unprotectedRTCP(bytes) == nil)
        }
        #expect(f.receiver.failureCounts.total == 4000)
    }

    /// The OpenSSL back end's sessions have one direction each.
    @Test(arguments: SRTPProfile.allCases)
    func aSessionWorksOneWay(profile: SRTPProfile) throws {
        let f = try Fixture(backend: .openSSL, profile: profile)
        #expect(f.sender.unprotectedRTP(f.srtp) == nil)
        #expect(f.receiver.protectedRTP(f.rtp) == nil)
        #expect(f.receiver.protectedRTCP(f.rtcp) == nil)
        #expect(f.sender.unprotectedRTCP(f.srtcp) == nil)
        #expect(f.receiver.unprotectedRTP(f.srtp) == f.rtp)
    }
}
