import Testing
@testable import SluiceTransport

/// Sluice's SRTP on OpenSSL against libsrtp2, packet by packet: both protect the same random
/// packets to the same bytes, and each unprotects what the other protected (the bytes being
/// equal, each receiver gets the other's output) to the same plaintext, accepting and refusing
/// the same packets. Across sequence wraps (ROC > 0), out of order around the wrap, with
/// retransmissions, CSRCs, header extensions and maximum-size packets.
@Suite struct SRTPOracleTests {
    /// The largest packet a pool buffer takes with room for any trailer.
    static let maxPacket = 2048 - SRTPSession.maxRTCPTrailer

    struct Sessions {
        let openSSL: SRTPSession
        let libsrtp: SRTPSession

        init(profile: SRTPProfile, key: [UInt8], salt: [UInt8], direction: SRTPSession.Direction) throws {
            openSSL = try SRTPSession(profile: profile, key: key, salt: salt, direction: direction, backend: .openSSL)
            libsrtp = try SRTPSession(profile: profile, key: key, salt: salt, direction: direction, backend: .libsrtp)
        }
    }

    struct Sent {
        var plain: [UInt8]
        var protected: [UInt8]
    }

    /// Both back ends' senders and receivers under one random master key.
    func pairs(_ profile: SRTPProfile, _ generator: inout SplitMix) throws -> (senders: Sessions, receivers: Sessions) {
        let key = generator.bytes(profile.keyLength), salt = generator.bytes(profile.saltLength)
        return (try Sessions(profile: profile, key: key, salt: salt, direction: .outbound),
                try Sessions(profile: profile, key: key, salt: salt, direction: .inbound))
    }

    func payloadLength(_ generator: inout SplitMix, header: Int) -> Int {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return 0
        case 1: return Self.maxPacket - header
        default: return Int.random(in: 1...1200, using: &generator)
        }
    }

    /// Protects `packet` with both; expects equal bytes.
    func protectRTP(_ packet: [UInt8], _ senders: Sessions, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8]? {
        let mine = senders.openSSL.protectedRTP(packet)
        let reference = senders.libsrtp.protectedRTP(packet)
        #expect(mine != nil, "OpenSSL refused: \(senders.openSSL.lastFailure)", sourceLocation: sourceLocation)
        #expect(mine == reference, "bytes differ from libsrtp's", sourceLocation: sourceLocation)
        return mine
    }

    /// Unprotects with both; expects the same verdict and, when accepted, `plain`.
    func unprotectRTP(_ sent: Sent, _ receivers: Sessions, expect failure: SRTPFailure = .none,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        let mine = receivers.openSSL.unprotectedRTP(sent.protected)
        let reference = receivers.libsrtp.unprotectedRTP(sent.protected)
        if failure == .none {
            #expect(mine == sent.plain, "OpenSSL: \(receivers.openSSL.lastFailure)", sourceLocation: sourceLocation)
            #expect(reference == sent.plain, "libsrtp: \(receivers.libsrtp.lastFailure)", sourceLocation: sourceLocation)
        } else {
            #expect(mine == nil && receivers.openSSL.lastFailure == failure, sourceLocation: sourceLocation)
            #expect(reference == nil && receivers.libsrtp.lastFailure == failure, sourceLocation: sourceLocation)
        }
    }

    /// Three SSRCs from just before the wrap to ROC 1, interleaved, with a retransmission of an
    /// earlier packet every tenth; delivered with packets swapped around the wrap.
    @Test(arguments: SRTPProfile.allCases)
    func rtpAcrossTheWrapOutOfOrder(profile: SRTPProfile) throws {
        var generator = SplitMix(seed: 0x5EED_0001 + UInt64(profile.rawValue))
        let (senders, receivers) = try pairs(profile, &generator)
        let ssrcs: [UInt32] = [0x1111_0001, 0xCAFE_BABE, 0x0000_0007]
        var sent: [Sent] = []
        var retransmissions: [Sent] = []
        for step in 0..<300 {
            for (i, ssrc) in ssrcs.enumerated() {
                let sequence = UInt16(truncatingIfNeeded: 65_536 - 120 + step + i * 5)
                let csrcs = Int.random(in: 0...2, using: &generator)
                let words = Int.random(in: 0..<4, using: &generator) == 0 ? Int.random(in: 1...3, using: &generator) : 0
                let header = 12 + 4 * csrcs + (words > 0 ? 4 + 4 * words : 0)
                let packet = SRTPTestPackets.rtp(ssrc: ssrc, sequence: sequence,
                                                 payloadLength: payloadLength(&generator, header: header),
                                                 csrcs: csrcs, extensionWords: words, using: &generator)
                let protected = try #require(protectRTP(packet, senders))
                sent.append(Sent(plain: packet, protected: protected))
            }
            if step % 10 == 9 {
                // A retransmission: the same packet, perhaps from before the wrap, protected again.
                let earlier = sent[sent.count - 1 - Int.random(in: 0..<min(sent.count, 200), using: &generator)]
                let again = try #require(protectRTP(earlier.plain, senders))
                #expect(again == earlier.protected)
                retransmissions.append(Sent(plain: earlier.plain, protected: again))
            }
        }
        // Swap neighbours in blocks, so packets from both sides of the wrap arrive late.
        var delivery = sent
        var i = 0
        while i + 7 < delivery.count {
            delivery.swapAt(i, i + 7)
            delivery.swapAt(i + 1, i + 4)
            i += 9
        }
        for packet in delivery { unprotectRTP(packet, receivers) }
        for packet in retransmissions { unprotectRTP(packet, receivers, expect: .replay) }
        #expect(receivers.openSSL.failureCounts.replay == UInt64(retransmissions.count))
    }

    /// Sequence numbers that jump by 20,000: a wrap every few packets, up to a ROC near 100,
    /// in order on both sides.
    @Test(arguments: SRTPProfile.allCases)
    func rtpAtLargeRolloverCounts(profile: SRTPProfile) throws {
        var generator = SplitMix(seed: 0x5EED_0002 + UInt64(profile.rawValue))
        let (senders, receivers) = try pairs(profile, &generator)
        var sequence: UInt16 = 40_000
        for _ in 0..<330 {
            sequence &+= 20_000
            let packet = SRTPTestPackets.rtp(ssrc: 0xABCD_0001, sequence: sequence,
                                             payloadLength: Int.random(in: 0...300, using: &generator), using: &generator)
            let protected = try #require(protectRTP(packet, senders))
            unprotectRTP(Sent(plain: packet, protected: protected), receivers)
        }
    }

    /// A packet older than the 1024-packet window: refused by both, on both sides.
    @Test(arguments: SRTPProfile.allCases)
    func rtpOlderThanTheWindow(profile: SRTPProfile) throws {
        var generator = SplitMix(seed: 0x5EED_0003 + UInt64(profile.rawValue))
        let (senders, receivers) = try pairs(profile, &generator)
        let old = SRTPTestPackets.rtp(ssrc: 9, sequence: 100, payloadLength: 50, using: &generator)
        let oldProtected = try #require(protectRTP(old, senders))
        let new = SRTPTestPackets.rtp(ssrc: 9, sequence: 100 + 1024, payloadLength: 50, using: &generator)
        let newProtected = try #require(protectRTP(new, senders))
        unprotectRTP(Sent(plain: new, protected: newProtected), receivers)
        unprotectRTP(Sent(plain: old, protected: oldProtected), receivers, expect: .replayTooOld)
        // The sender refuses to protect it again, as libsrtp does.
        #expect(senders.openSSL.protectedRTP(old) == nil && senders.openSSL.lastFailure == .replayTooOld)
        #expect(senders.libsrtp.protectedRTP(old) == nil && senders.libsrtp.lastFailure == .replayTooOld)
    }

    /// SRTCP from three SSRCs: the same bytes (the index counted per SSRC), cross-unprotected,
    /// some out of order; a replay refused by both.
    @Test(arguments: SRTPProfile.allCases)
    func rtcpMatchesLibsrtp(profile: SRTPProfile) throws {
        var generator = SplitMix(seed: 0x5EED_0004 + UInt64(profile.rawValue))
        let (senders, receivers) = try pairs(profile, &generator)
        let ssrcs: [UInt32] = [1, 0xFFFF_FFFF, 0x4D61_7273]
        var sent: [Sent] = []
        for step in 0..<150 {
            let ssrc = ssrcs[step % 3]
            let words = step % 17 == 0 ? (Self.maxPacket - 8) / 4 : Int.random(in: 0...60, using: &generator)
            let packet = SRTPTestPackets.rtcp(ssrc: ssrc, words: words, using: &generator)
            let mine = senders.openSSL.protectedRTCP(packet)
            let reference = senders.libsrtp.protectedRTCP(packet)
            #expect(mine != nil)
            #expect(mine == reference, "SRTCP bytes differ at step \(step)")
            sent.append(Sent(plain: packet, protected: try #require(mine)))
        }
        var delivery = sent
        var i = 0
        while i + 5 < delivery.count {
            delivery.swapAt(i, i + 5)
            i += 8
        }
        for packet in delivery {
            #expect(receivers.openSSL.unprotectedRTCP(packet.protected) == packet.plain)
            #expect(receivers.libsrtp.unprotectedRTCP(packet.protected) == packet.plain)
        }
        let replayed = sent[sent.count - 2]
        #expect(receivers.openSSL.unprotectedRTCP(replayed.protected) == nil && receivers.openSSL.lastFailure == .replay)
        #expect(receivers.libsrtp.unprotectedRTCP(replayed.protected) == nil && receivers.libsrtp.lastFailure == .replay)
    }
}
