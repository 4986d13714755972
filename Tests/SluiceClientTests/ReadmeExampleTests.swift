import Foundation
import SluiceClient
import SluiceTestMedia
import SluiceRTP
import Synchronization
import Testing

/// The "Swift client SDK" example of docs/sdks.md (once the README's), against an in-process
/// server, so that it keeps compiling and working.
@Suite(.serialized) struct ReadmeExampleTests {
    final class Player: PeerConnectionDelegate, @unchecked Sendable {
        let video = Mutex(ReceivedStreamStats(codec: .vp8))
        func peerConnection(_ c: PeerConnection, didReceiveRTP packet: RTPPacket, kind: TrackKind?, now: UInt64) {
            if kind == .video { video.withLock { $0.record(packet, now: now) } }
        }
    }

    @Test func readmeExample() async throws {
        let server = try TestServer()
        defer { server.shutdown() }

        let session = try SluiceSession(host: "127.0.0.1", port: server.port).unwrapped()
        try await session.open()
        _ = try await session.connect(appKey: TestServer.appKey)
        let log = NotificationLog(session)

        let publisher = try PeerConnection(configuration: .init(role: .publish))
        let source = SyntheticPublisher(video: .init(width: 640, height: 360, fps: 30, bitrateKbps: 800))
        publisher.delegate = source
        let pub = try await session.publish(stream: "cam1", sdp: publisher.localDescription)
        try await publisher.setRemoteDescription(pub.sdp)
        try await publisher.waitUntilConnected()

        let player = try PeerConnection(configuration: .init(role: .play))
        let sink = Player()
        player.delegate = sink
        let play = try await session.play(stream: "cam1", sdp: player.localDescription,
                                          constraints: StreamConstraints(video: .limits(TrackLimits(quality: .low))))
        try await player.setRemoteDescription(play.sdp)
        #expect(await eventually { sink.video.withLock { $0.keyFrames > 0 } })
        #expect(sink.video.withLock { $0.lastKeyFrameSize?.width } == 640)

        try await session.mute(handle: pub.handle, kind: .video)
        let stats = try await session.getStats(handle: play.handle)
        #expect(stats["role"] == "play")
        try await session.stop(handle: pub.handle)
        _ = try await log.streamStatus(handle: play.handle, .unpublished)
        player.close()
        publisher.close()
        try await session.disconnect()
        #expect(try await log.closed().code == 1000)
    }
}
