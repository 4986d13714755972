import Foundation
import SluiceTransport
import Testing

/// The SRTP cost per 1,100-byte packet, both back ends, both profiles, for 1, 200 and 1,000
/// transports (each an outbound and an inbound session, as a server holds them) with 3 SSRCs
/// each. A figure, not a check: runs only with SLUICE_SRTP_BENCH set, in a release build.
///   scripts/bench/srtp.sh    (SLUICE_SRTP_BENCH=1 swift test -c release --filter SRTPBenchmark)
/// Each block copies packets for every SSRC of every transport into an arena (not timed), at
/// least 3,000 of them (consecutive sequence numbers when there are fewer SSRCs), then protects
/// them all (timed), then unprotects them all (timed): 3.6 MB, so the packets come from memory
/// as a server's do, and the session state is as cold as 1,000 transports make it. Thread CPU time,
/// so other work on a shared machine does not count; the median of `repeats` runs.
@Suite(.serialized) struct SRTPBenchmark {
    static let enabled = ProcessInfo.processInfo.environment["SLUICE_SRTP_BENCH"] != nil
    static let packetLength = 1100
    static let ssrcsPerTransport = 3
    static let slot = 2048
    static var transportCounts: [Int] {
        ProcessInfo.processInfo.environment["SLUICE_SRTP_BENCH_SESSIONS"]?.split(separator: ",").compactMap { Int($0) }
            ?? [1, 200, 1000]
    }
    static var backends: [SRTPBackend] {
        ProcessInfo.processInfo.environment["SLUICE_SRTP_BENCH_BACKENDS"]?.split(separator: ",")
            .compactMap { SRTPBackend(rawValue: String($0)) } ?? [.libsrtp, .openSSL]
    }
    static let packetsPerRun = 60_000
    static let repeats = 3

    struct Figure {
        var protectMicros: Double
        var unprotectMicros: Double
    }

    static func threadCPUNanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func measure(backend: SRTPBackend, profile: SRTPProfile, transports: Int) throws -> Figure {
        var generator = SystemRandomNumberGenerator()
        var senders: [SRTPSession] = []
        var receivers: [SRTPSession] = []
        for _ in 0..<transports {
            let key = (0..<profile.keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let salt = (0..<profile.saltLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            senders.append(try SRTPSession(profile: profile, key: key, salt: salt, direction: .outbound, backend: backend))
            receivers.append(try SRTPSession(profile: profile, key: key, salt: salt, direction: .inbound, backend: backend))
        }
        // One block: every SSRC of every transport, `depth` consecutive packets each, so a block
        // has at least 3,000 packets and the clock (a system call) is read rarely.
        let streams = transports * ssrcsPerTransport
        let depth = max(1, 3000 / streams)
        let packets = streams * depth
        let arena = UnsafeMutableRawPointer.allocate(byteCount: packets * slot, alignment: 64)
        defer { arena.deallocate() }
        var lengths = [Int](repeating: 0, count: packets)
        let template = UnsafeMutableRawPointer.allocate(byteCount: packetLength, alignment: 16)
        defer { template.deallocate() }
        for i in 0..<packetLength { template.storeBytes(of: UInt8(truncatingIfNeeded: i &* 31), toByteOffset: i, as: UInt8.self) }
        template.storeBytes(of: UInt8(0x80), as: UInt8.self)
        template.storeBytes(of: UInt8(96), toByteOffset: 1, as: UInt8.self)

        let blocks = max(1, packetsPerRun / packets) + 1  // the first block starts every stream: not counted
        var protectNanos: UInt64 = 0, unprotectNanos: UInt64 = 0, failures = 0
        var sequence: UInt16 = 1000
        for block in 0..<blocks {
            for step in 0..<depth {
                for stream in 0..<streams {
                    let packet = arena + (step * streams + stream) * slot
                    packet.copyMemory(from: template, byteCount: packetLength)
                    packet.storeBytes(of: (sequence &+ UInt16(step)).bigEndian, toByteOffset: 2, as: UInt16.self)
                    packet.storeBytes(of: UInt32(0x1000 + stream % ssrcsPerTransport).bigEndian, toByteOffset: 8, as: UInt32.self)
                    lengths[step * streams + stream] = packetLength
                }
            }
            sequence &+= UInt16(depth)
            let start = threadCPUNanos()
            lengths.withUnsafeMutableBufferPointer { lengths in
                for p in 0..<packets where !senders[p % streams / ssrcsPerTransport].protectRTP(arena + p * slot,
                                                                                                length: &lengths[p], capacity: slot) {
                    failures += 1
                }
            }
            let middle = threadCPUNanos()
            lengths.withUnsafeMutableBufferPointer { lengths in
                for p in 0..<packets where !receivers[p % streams / ssrcsPerTransport].unprotectRTP(arena + p * slot,
                                                                                                    length: &lengths[p]) {
                    failures += 1
                }
            }
            let end = threadCPUNanos()
            if block > 0 {
                protectNanos += middle - start
                unprotectNanos += end - middle
            }
        }
        precondition(failures == 0, "\(failures) packets refused")
        let counted = Double((blocks - 1) * packets)
        return Figure(protectMicros: Double(protectNanos) / counted / 1000, unprotectMicros: Double(unprotectNanos) / counted / 1000)
    }

    @Test(.enabled(if: enabled, "set SLUICE_SRTP_BENCH=1 (scripts/bench/srtp.sh)"))
    func srtpCostPerPacket() throws {
        let names: [SRTPBackend: String] = [.libsrtp: "libsrtp2 (NSS)", .openSSL: "OpenSSL (Sluice)"]
        var lines = ["| transports | profile | " + Self.backends.map { "\(names[$0]!) protect / unprotect" }.joined(separator: " | ") + " |",
                     "|---|---|" + String(repeating: "---|", count: Self.backends.count)]
        for transports in Self.transportCounts {
            for profile in [SRTPProfile.aeadAES128GCM, .aes128CMHMACSHA1_80] {
                var cells: [String] = []
                for backend in Self.backends {
                    var runs: [Figure] = []
                    for _ in 0..<Self.repeats { runs.append(try Self.measure(backend: backend, profile: profile, transports: transports)) }
                    let protect = runs.map(\.protectMicros).sorted()[runs.count / 2]
                    let unprotect = runs.map(\.unprotectMicros).sorted()[runs.count / 2]
                    cells.append(String(format: "%.2f / %.2f µs", protect, unprotect))
                }
                lines.append("| \(transports) | \(profile.name) | " + cells.joined(separator: " | ") + " |")
                print(lines.last!)
            }
        }
        print("SRTP per \(Self.packetLength)-byte packet, \(Self.ssrcsPerTransport) SSRCs per session, thread CPU time, "
              + "median of \(Self.repeats):\n" + lines.joined(separator: "\n"))
    }
}
