import Foundation
import SluiceClient
import SluiceTestMedia
import Testing

/// Connections on a `MediaWorkerPool` (one socket each on a shared worker) and SSRC simulcast,
/// through a real in-process server.
@Suite(.serialized) struct SharedWorkerTests {
    @Test func playersOnOneSharedWorkerEachGetTheirOwnStream() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let pool = try MediaWorkerPool(count: 1, poolCapacity: 1024)
        defer { pool.stop() }

        let (publisherSession, _) = try await server.connectedSession()
        let publisher = try PeerConnection(configuration: .init(role: .publish), worker: pool.next(), security: pool.security)
        defer { publisher.close() }
        let source = SyntheticPublisher(video: .init(width: 320, height: 240, fps: 30, bitrateKbps: 300, keyFrameIntervalSeconds: 1))
        publisher.delegate = source
        let published = try await publisherSession.publish(stream: "shared", sdp: publisher.localDescription)
        try await publisher.setRemoteDescription(published.sdp)
        try await publisher.waitUntilConnected()

        var players: [(PeerConnection, PlayerRecorder, SluiceSession)] = []
        for _ in 0..<3 {
            let (session, _) = try await server.connectedSession()
            let player = try PeerConnection(configuration: .init(role: .play), worker: pool.next(), security: pool.security)
            #expect(player.worker === publisher.worker)
            #expect(player.socket.localAddress != publisher.socket.localAddress)
            let recorder = PlayerRecorder()
            player.delegate = recorder
            let played = try await session.play(stream: "shared", sdp: player.localDescription)
            try await player.setRemoteDescription(played.sdp)
            try await player.waitUntilConnected()
            players.append((player, recorder, session))
        }
        #expect(await eventually(within: 20) {
            players.allSatisfy { $0.1.video.keyFrames >= 1 && $0.1.video.packets >= 30 && $0.1.audio.packets >= 25 }
        })
        for (player, recorder, session) in players {
            let video = recorder.video, audio = recorder.audio
            #expect(video.lost == 0 && video.gaps == 0 && video.duplicates == 0)
            #expect(audio.lost == 0 && audio.gaps == 0 && audio.duplicates == 0)
            // Each player has its own SSRCs from the server: nothing crossed over.
            #expect(video.ssrc.map { player.answer?.video?.ssrcs.contains($0) } == true)
            #expect(video.ssrcChanges == 0)
            player.close()
            try await session.disconnect()
        }
        try await publisherSession.disconnect()
    }

    @Test func simulcastPublisherServesTheLayerEachPlayerAsks() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let pool = try MediaWorkerPool(count: 2, poolCapacity: 2048)
        defer { pool.stop() }

        let (publisherSession, _) = try await server.connectedSession()
        let publisher = try PeerConnection(configuration: .init(role: .publish, simulcastLayers: 3),
                                           worker: pool.next(), security: pool.security)
        defer { publisher.close() }
        #expect(publisher.videoSSRCs.count == 3 && Set(publisher.videoSSRCs).count == 3)
        let source = SyntheticPublisher(simulcast: [
            .init(width: 160, height: 90, fps: 30, bitrateKbps: 60, keyFrameIntervalSeconds: 1),
            .init(width: 320, height: 180, fps: 30, bitrateKbps: 150, keyFrameIntervalSeconds: 1),
            .init(width: 640, height: 360, fps: 30, bitrateKbps: 500, keyFrameIntervalSeconds: 1),
        ])
        publisher.delegate = source
        let published = try await publisherSession.publish(stream: "layers", sdp: publisher.localDescription)
        try await publisher.setRemoteDescription(published.sdp)
        try await publisher.waitUntilConnected()

        var players: [(quality: PlayQuality, width: Int, PeerConnection, PlayerRecorder, SluiceSession, NotificationLog, String)] = []
        for (quality, width) in [(PlayQuality.low, 160), (.high, 640)] {
            let (session, log) = try await server.connectedSession()
            let player = try PeerConnection(configuration: .init(role: .play), worker: pool.next(), security: pool.security)
            let recorder = PlayerRecorder()
            player.delegate = recorder
            let played = try await session.play(stream: "layers", sdp: player.localDescription,
                                                constraints: StreamConstraints(video: .limits(TrackLimits(quality: quality))))
            try await player.setRemoteDescription(played.sdp)
            try await player.waitUntilConnected()
            players.append((quality, width, player, recorder, session, log, played.handle))
        }
        for p in players {
            #expect(await eventually(within: 20) { p.3.video.keyFrames >= 2 && p.3.video.lastKeyFrameSize?.width == p.width },
                    "quality \(p.quality) should get the \(p.width)-wide layer")
            _ = try await p.5.first { n in
                if case .streamEvent(let e) = n { return e.handle == p.6 && e.type == .layerChanged }
                return false
            }
            let video = p.3.video
            #expect(video.lost == 0 && video.duplicates == 0 && video.ssrcChanges == 0)
            p.2.close()
            try await p.4.disconnect()
        }
        try await publisherSession.disconnect()
    }
}
