import CMallocCounter
import SluiceTransport
import Testing

/// Hot-path rule 1 for SRTP alone: Sluice's SRTP on OpenSSL protects and unprotects RTP and
/// SRTCP, both profiles, with no heap allocation, nothing excluded. Three SSRCs per session,
/// as a transport has; counted after the first packet of each (which starts its stream).
extension ForwardingAllocationTests {
    @Test(.enabled(if: ForwardingAllocationTests.isOptimized, "run with swift test -c release"),
          arguments: SRTPProfile.allCases)
    func srtpOnOpenSSLAllocatesNothingPerPacket(profile: SRTPProfile) throws {
        let key = [UInt8](repeating: 0x42, count: profile.keyLength), salt = [UInt8](repeating: 0x24, count: profile.saltLength)
        let sender = try SRTPSession(profile: profile, key: key, salt: salt, direction: .outbound)
        let receiver = try SRTPSession(profile: profile, key: key, salt: salt, direction: .inbound)
        #expect(sender.backend == .openSSL && receiver.backend == .openSSL)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 2048, alignment: 16)
        defer { buffer.deallocate() }
        var failures = 0

        func exchange(_ count: Int, from first: Int) {
            for n in first..<(first + count) {
                let ssrc = UInt32(0x1000 + n % 3)
                // RTP, 1,100 bytes, sequence numbers through a wrap.
                var length = 1100
                buffer.initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: n), count: length)
                buffer.storeBytes(of: UInt8(0x80), as: UInt8.self)
                buffer.storeBytes(of: UInt16(truncatingIfNeeded: 65_000 + n / 3).bigEndian, toByteOffset: 2, as: UInt16.self)
                buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
                if !sender.protectRTP(buffer, length: &length, capacity: 2048) || !receiver.unprotectRTP(buffer, length: &length) {
                    failures += 1
                }
                // A receiver report's worth of RTCP.
                length = 32
                buffer.storeBytes(of: UInt32(0x81C9_0007).bigEndian, as: UInt32.self)
                buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 4, as: UInt32.self)
                if !sender.protectRTCP(buffer, length: &length, capacity: 2048) || !receiver.unprotectRTCP(buffer, length: &length) {
                    failures += 1
                }
            }
        }

        exchange(3, from: 0)
        sluice_malloc_reset()
        sluice_malloc_counting(1)
        exchange(6000, from: 3)
        sluice_malloc_counting(0)
        let allocations = sluice_malloc_count(), excluded = sluice_malloc_excluded_count()
        print("SRTP on OpenSSL, \(profile.name): \(allocations) allocations over 6,000 RTP and 6,000 RTCP packets "
              + "protected and unprotected (\(excluded) excluded)")
        #expect(failures == 0)
        #expect(allocations == 0 && excluded == 0)
    }
}
