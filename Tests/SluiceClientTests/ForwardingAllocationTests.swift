import CMallocCounter
import Foundation
import SluiceClient
import SluiceTestMedia
import SluiceTransport
import Testing

/// docs/design.md hot-path rule 1: forwarding allocates nothing per packet. One synthetic publisher
/// (VP8 at 30 fps and Opus at 50 packets/s) and three players through a real in-process
/// server; once the stream is steady, every heap allocation the server makes while handling
/// an incoming RTP packet (unprotect, fan-out to three players, rewrite, protect, queue) is
/// counted. The test fails on that count, never on time.
@Suite(.serialized) struct ForwardingAllocationTests {
    /// Optimized builds only (scripts/test.sh runs it with `swift test -c release`): without
    /// optimization, unspecialized generic code allocates where shipped code does not.
    static var isOptimized: Bool {
        #if DEBUG
        return false
        #else
        return true
        #endif
    }

    /// Over UDP, and over ICE-TCP (every connection framed on TCP, sends copied into each
    /// connection's send queue).
    @Test(.enabled(if: isOptimized, "run with swift test -c release"), arguments: PeerConnection.ICETransport.allCases)
    func steadyForwardingAllocatesNothingPerPacket(transport: PeerConnection.ICETransport) async throws {
        try await measureForwarding(transport: transport, workers: 1)
    }

    /// Two workers: players on both, so the home worker hands every packet to the other
    /// (reference counted, through the lock-free queue), which forwards it to its own players.
    /// Both workers' packet paths are counted.
    @Test(.enabled(if: isOptimized, "run with swift test -c release"))
    func crossWorkerForwardingAllocatesNothingPerPacket() async throws {
        try await measureForwarding(transport: .udp, workers: 2)
    }

    /// Each DTLS-SRTP profile forced in turn (`rtc.srtpProfiles`), on each SRTP back end: with
    /// OpenSSL (the default) nothing is excluded from the count; with libsrtp its own
    /// allocations are (Debian's build on NSS allocates per call) and Sluice's stay at 0.
    @Test(.enabled(if: isOptimized, "run with swift test -c release"),
          arguments: SRTPBackend.allCases, SRTPProfile.allCases)
    func steadyForwardingAllocatesNothingPerPacketOnEachProfile(backend: SRTPBackend, profile: SRTPProfile) async throws {
        try await measureForwarding(transport: .udp, workers: 1, srtp: SRTPConfiguration(backend: backend, profiles: [profile]))
    }

    private func measureForwarding(transport: PeerConnection.ICETransport, workers: Int,
                                   srtp: SRTPConfiguration = SRTPConfiguration()) async throws {
        let server = try TestServer(workers: workers) { $0.srtp = srtp }
        defer { server.shutdown() }
        let (publisher, source) = try await AllocationRun.publish(on: server, transport: transport)
        // The source lives until the end: the connection holds its delegate weakly.
        defer { publisher.close(); withExtendedLifetime(source) {} }
        let players = try await AllocationRun.play(on: server, count: 3, transport: transport)
        defer { for (player, _) in players { player.close() } }
        let window = try await AllocationRun.measure(players: players, worker: server.server.media.workers[0])

        if workers > 1 {
            let relay = server.server.media.relayCounters
            let delivered = relay.reduce(0) { $0 + $1.delivered }
            print("cross-worker: \(relay.map { "worker \($0.worker) handed \($0.handed), delivered \($0.delivered)" })")
            #expect(delivered > 100, "no packet crossed between workers: \(relay)")
        }
        print("forwarding allocations over \(transport), \(workers) worker(s), SRTP on \(srtp.backend.rawValue) "
              + "\(srtp.profiles.map(\.name)): \(window.allocations) in Sluice, "
              + "\(window.inLibsrtp) in libsrtp, over \(window.forwarded) packets forwarded to 3 players")
        // A figure, not a check: the worker's CPU time per forwarded packet, everything included
        // (the publisher's incoming packets, RTCP, timers, SRTP both ways, sendmmsg).
        print("worker CPU per forwarded packet over \(transport): "
              + "\(String(format: "%.2f", Double(window.cpuMicros) / Double(max(1, window.forwarded)))) µs "
              + "(\(window.cpuMicros) µs for \(window.forwarded) packets)")
        #expect(window.forwarded > 300, "too little media flowed to measure (\(window.forwarded) packets)")
        #expect(window.allocations == 0, "\(window.allocations) heap allocations while forwarding \(window.forwarded) packets")
        // With OpenSSL the libsrtp probe never ran: every packet went through the OpenSSL back
        // end, and nothing was left out of the count. With libsrtp it ran (NSS allocates): the
        // config reached the transports.
        if srtp.backend == .openSSL {
            #expect(window.inLibsrtp == 0, "\(window.inLibsrtp) allocations excluded as libsrtp's")
        } else {
            #expect(window.inLibsrtp > 0, "no allocation in libsrtp: did rtc.srtp reach the transports?")
        }
    }
}
