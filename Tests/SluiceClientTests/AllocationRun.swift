import CMallocCounter
import Foundation
import SluiceClient
import SluiceTestMedia
import SluiceTransport
import Testing

/// The steps the allocation tests share (docs/design.md hot-path rule 1): a synthetic
/// publisher (VP8 at 30 fps and Opus at 50 packets/s), players, and a 3 s window in which every
/// heap allocation on any transport's RTP path in this process is counted (unprotect, fan-out,
/// rewrite, protect, queue; on every server in the process).
enum AllocationRun {
    struct Window {
        var allocations: Int
        /// Debian's libsrtp2 runs its ciphers through NSS, which allocates on every call: a
        /// figure to report, not Sluice's code.
        var inLibsrtp: Int
        var forwarded: UInt64
        var cpuMicros: UInt64
    }

    /// The publisher, and its source (the connection holds its delegate weakly: keep both).
    static func publish(on server: TestServer, stream: String = "alloc",
                        transport: PeerConnection.ICETransport = .udp,
                        record: Bool? = nil, audioRED: Bool = false,
                        dependencyDescriptor: Bool = false) async throws -> (PeerConnection, SyntheticPublisher) {
        let (session, log) = try await server.connectedSession()
        var configuration = PeerConnection.Configuration(role: .publish, iceTransport: transport)
        configuration.audioRED = audioRED
        configuration.dependencyDescriptor = dependencyDescriptor
        let publisher = try PeerConnection(configuration: configuration)
        let source = SyntheticPublisher(video: .init(width: 640, height: 360, fps: 30, bitrateKbps: 800,
                                                     keyFrameIntervalSeconds: 1))
        publisher.delegate = source
        let published = try await session.publish(stream: stream, sdp: publisher.localDescription, record: record)
        try await publisher.setRemoteDescription(published.sdp)
        try await publisher.waitUntilConnected()
        _ = try await log.streamStatus(handle: published.handle, .publishing)
        return (publisher, source)
    }

    /// `count` players of `stream`, each `PLAYING`; a play refused (say, before a cluster's
    /// registry lists another node's stream) is tried again for up to `retrySeconds`.
    static func play(on server: TestServer, stream: String = "alloc", count: Int,
                     transport: PeerConnection.ICETransport = .udp,
                     retrySeconds: Double = 0, audioRED: [Bool] = [],
                     dependencyDescriptor: Bool = false,
                     constraints: [StreamConstraints?] = []) async throws -> [(PeerConnection, PlayerRecorder)] {
        var players: [(PeerConnection, PlayerRecorder)] = []
        for index in 0..<count {
            let (session, log) = try await server.connectedSession()
            var configuration = PeerConnection.Configuration(role: .play, iceTransport: transport)
            configuration.audioRED = index < audioRED.count && audioRED[index]
            configuration.dependencyDescriptor = dependencyDescriptor
            let player = try PeerConnection(configuration: configuration)
            let recorder = PlayerRecorder()
            player.delegate = recorder
            let deadline = Date().addingTimeInterval(retrySeconds)
            let asked = index < constraints.count ? constraints[index] : nil
            var played = try? await session.play(stream: stream, sdp: player.localDescription, constraints: asked)
            while played == nil, Date() < deadline {
                try await Task.sleep(nanoseconds: 200_000_000)
                played = try? await session.play(stream: stream, sdp: player.localDescription, constraints: asked)
            }
            let answer = try played.unwrapped("play of \(stream)")
            try await player.setRemoteDescription(answer.sdp)
            try await player.waitUntilConnected()
            _ = try await log.streamStatus(handle: answer.handle, .playing)
            players.append((player, recorder))
        }
        return players
    }

    /// Every player past a few key frames (so every table and buffer exists), then 3 s counted.
    static func measure(players: [(PeerConnection, PlayerRecorder)], worker: MediaWorker) async throws -> Window {
        #expect(await eventually(within: 30) {
            players.allSatisfy { $0.1.video.keyFrames >= 3 && $0.1.audio.packets >= 100 }
        })
        let before = players.map { $0.1.video.packets + $0.1.audio.packets }
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
        let forwarded = zip(players, before).map { $0.0.1.video.packets + $0.0.1.audio.packets - $0.1 }.reduce(0, +)
        return Window(allocations: Int(allocations), inLibsrtp: Int(sluice_malloc_excluded_count()),
                      forwarded: forwarded, cpuMicros: cpuMicros)
    }

    /// The worker's own CPU time, read on the worker.
    static func cpuTime(of worker: MediaWorker) async -> UInt64 {
        await withCheckedContinuation { continuation in
            worker.execute { continuation.resume(returning: MediaWorker.threadCPUMicros()) }
        }
    }
}
