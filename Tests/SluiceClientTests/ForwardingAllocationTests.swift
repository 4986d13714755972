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
/// The worker's own CPU time, read on the worker.
private func cpuTime(of worker: MediaWorker) async -> UInt64 {
    await withCheckedContinuation { continuation in
        worker.execute { continuation.resume(returning: MediaWorker.threadCPUMicros()) }
    }
}

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

    private func measureForwarding(transport: PeerConnection.ICETransport, workers: Int) async throws {
        let server = try TestServer(workers: workers)
        defer { server.shutdown() }

        let (publisherSession, publisherLog) = try await server.connectedSession()
        let publisher = try PeerConnection(configuration: .init(role: .publish, iceTransport: transport))
        defer { publisher.close() }
        let source = SyntheticPublisher(video: .init(width: 640, height: 360, fps: 30, bitrateKbps: 800,
                                                     keyFrameIntervalSeconds: 1))
        publisher.delegate = source
        let published = try await publisherSession.publish(stream: "alloc", sdp: publisher.localDescription)
        try await publisher.setRemoteDescription(published.sdp)
        try await publisher.waitUntilConnected()
        _ = try await publisherLog.streamStatus(handle: published.handle, .publishing)

        var players: [(PeerConnection, PlayerRecorder)] = []
        for _ in 0..<3 {
            let (session, log) = try await server.connectedSession()
            let player = try PeerConnection(configuration: .init(role: .play, iceTransport: transport))
            let recorder = PlayerRecorder()
            player.delegate = recorder
            let played = try await session.play(stream: "alloc", sdp: player.localDescription)
            try await player.setRemoteDescription(played.sdp)
            try await player.waitUntilConnected()
            _ = try await log.streamStatus(handle: played.handle, .playing)
            players.append((player, recorder))
        }
        defer { for (player, _) in players { player.close() } }

        // Warm up: every player past a few key frames, so that every table and buffer exists.
        #expect(await eventually(within: 30) {
            players.allSatisfy { $0.1.video.keyFrames >= 3 && $0.1.audio.packets >= 100 }
        })

        let before = players.map { $0.1.video.packets + $0.1.audio.packets }
        let worker = server.server.media.workers[0]
        let cpuBefore = await cpuTime(of: worker)
        sluice_malloc_reset()
        SRTPSession.libraryCallProbe = sluice_malloc_exclude
        WebRTCTransport.rtpPathProbe = sluice_malloc_counting
        try await Task.sleep(nanoseconds: 3_000_000_000)
        WebRTCTransport.rtpPathProbe = nil
        SRTPSession.libraryCallProbe = nil
        // The probe's last call turned counting off on the worker; read after it returned.
        try await Task.sleep(nanoseconds: 50_000_000)
        let allocations = sluice_malloc_count()
        let cpuMicros = await cpuTime(of: worker) - cpuBefore
        // Debian's libsrtp2 runs its ciphers through NSS, which allocates on every call: a
        // figure to report (and a reason to revisit the SRTP backend), not Sluice's code.
        let inLibsrtp = sluice_malloc_excluded_count()
        let forwarded = zip(players, before).map { $0.0.1.video.packets + $0.0.1.audio.packets - $0.1 }.reduce(0, +)

        if workers > 1 {
            let relay = server.server.media.relayCounters
            let delivered = relay.reduce(0) { $0 + $1.delivered }
            print("cross-worker: \(relay.map { "worker \($0.worker) handed \($0.handed), delivered \($0.delivered)" })")
            #expect(delivered > 100, "no packet crossed between workers: \(relay)")
        }
        print("forwarding allocations over \(transport), \(workers) worker(s): \(allocations) in Sluice, \(inLibsrtp) in libsrtp, "
              + "over \(forwarded) packets forwarded to 3 players")
        // A figure, not a check: the worker's CPU time per forwarded packet, everything included
        // (the publisher's incoming packets, RTCP, timers, SRTP both ways, sendmmsg).
        print("worker CPU per forwarded packet over \(transport): \(String(format: "%.2f", Double(cpuMicros) / Double(max(1, forwarded)))) µs "
              + "(\(cpuMicros) µs for \(forwarded) packets)")
        #expect(forwarded > 300, "too little media flowed to measure (\(forwarded) packets)")
        #expect(allocations == 0, "\(allocations) heap allocations while forwarding \(forwarded) packets")
    }
}
