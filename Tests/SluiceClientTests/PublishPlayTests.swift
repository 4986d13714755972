import Foundation
import SluiceClient
import SluiceRTP
import Synchronization
import Testing

/// Records what a player receives, from the worker thread.
final class PlayerRecorder: PeerConnectionDelegate, @unchecked Sendable {
    struct Snapshot {
        var video: ReceivedStreamStats
        var audio: ReceivedStreamStats
        var unknownKind = 0
    }

    let snapshot = Mutex(Snapshot(video: ReceivedStreamStats(codec: .vp8), audio: ReceivedStreamStats(codec: .opus)))

    func peerConnection(_ connection: PeerConnection, didReceiveRTP packet: RTPPacket, kind: MediaKindName?, now: UInt64) {
        snapshot.withLock { s in
            switch kind {
            case .video: s.video.record(packet, now: now)
            case .audio: s.audio.record(packet, now: now)
            case nil: s.unknownKind += 1
            }
        }
    }

    var video: ReceivedStreamStats { snapshot.withLock { $0.video } }
    var audio: ReceivedStreamStats { snapshot.withLock { $0.audio } }
    var unknownKind: Int { snapshot.withLock { $0.unknownKind } }
}

/// A publisher and a player through a real in-process server: signaling over WebSocket,
/// media over ICE, DTLS and SRTP on 127.0.0.1.
@Suite(.serialized) struct PublishPlayTests {
    @Test func publishAndPlaySyntheticVP8AndOpus() async throws {
        let server = try TestServer()
        defer { server.shutdown() }

        // Publisher.
        let (publisherSession, publisherLog) = try await server.connectedSession()
        let publisher = try PeerConnection(configuration: .init(role: .publish))
        defer { publisher.close() }
        let source = SyntheticPublisher(video: .init(width: 320, height: 240, fps: 30, bitrateKbps: 300,
                                                     keyFrameIntervalSeconds: 1))
        publisher.delegate = source
        let published = try await publisherSession.publish(stream: "cam", sdp: publisher.localDescription,
                                                           constraints: StreamConstraints(audio: .on, video: .on))
        try await publisher.setRemoteDescription(published.sdp)
        try await publisher.waitUntilConnected()
        _ = try await publisherLog.streamStatus(handle: published.handle, .publishing)

        // Player.
        let (playerSession, playerLog) = try await server.connectedSession()
        let player = try PeerConnection(configuration: .init(role: .play))
        defer { player.close() }
        let recorder = PlayerRecorder()
        player.delegate = recorder
        let played = try await playerSession.play(stream: "cam", sdp: player.localDescription)
        #expect(played.handle != published.handle)
        try await player.setRemoteDescription(played.sdp)
        #expect(player.answer?.video?.ssrcs.isEmpty == false)
        try await player.waitUntilConnected()
        let playing = try await playerLog.streamStatus(handle: played.handle, .playing)
        #expect(playing.role == .play && playing.stream == "cam")

        // Enough media for a key frame and a run of deltas on both kinds.
        #expect(await eventually(within: 20) {
            recorder.video.keyFrames >= 2 && recorder.video.packets >= 60 && recorder.audio.packets >= 50
        })
        let video = recorder.video, audio = recorder.audio
        #expect(video.lost == 0 && video.gaps == 0 && video.duplicates == 0 && video.reordered == 0)
        #expect(audio.lost == 0 && audio.gaps == 0 && audio.duplicates == 0 && audio.reordered == 0)
        #expect(video.ssrcChanges == 0 && audio.ssrcChanges == 0)
        #expect(recorder.unknownKind == 0)
        #expect(video.lastKeyFrameSize?.width == 320 && video.lastKeyFrameSize?.height == 240)
        #expect(video.ssrc.map { player.answer?.video?.ssrcs.contains($0) } == true)
        // One-way delay is measured on every probed packet (its size is a figure, not a check).
        #expect(video.delay.count == video.packets)
        #expect(audio.delay.count == audio.packets)
        #expect(video.delay.percentileMicros(0.99) != nil)

        let stats = try await publisherSession.getStats(handle: published.handle)
        #expect(stats["role"]?.stringValue == "publish")
        #expect((stats["video"]?["packets"]?.intValue ?? 0) > 0)

        // The publisher stops: the player hears UNPUBLISHED "Stopped by publisher stop".
        try await publisherSession.stop(handle: published.handle)
        let own = try await publisherLog.streamStatus(handle: published.handle, .unpublished)
        #expect(own.info == "Stopped by user")
        let unpublished = try await playerLog.streamStatus(handle: played.handle, .unpublished)
        #expect(unpublished.info == "Stopped by publisher stop")

        try await playerSession.disconnect()
        try await publisherSession.disconnect()
    }
}
