import Foundation
import SluiceClient
import SluiceTestMedia
import SluiceRTP
import SluiceTransport
import Synchronization
import Testing

/// Records what a player receives, from the worker thread.
final class PlayerRecorder: PeerConnectionDelegate, @unchecked Sendable {
    struct Snapshot {
        var video: ReceivedStreamStats
        var audio: ReceivedStreamStats
        var unknownKind = 0
        /// Video packets with a dependency descriptor under the id the client offers.
        var describedVideo = 0
        /// Of those, descriptors that name their active decode targets (a forwarder's rewrite).
        var activeTargetsVideo = 0
    }

    let snapshot = Mutex(Snapshot(video: ReceivedStreamStats(codec: .vp8), audio: ReceivedStreamStats(codec: .opus)))

    func peerConnection(_ connection: PeerConnection, didReceiveRTP packet: RTPPacket, kind: TrackKind?, now: UInt64) {
        snapshot.withLock { s in
            switch kind {
            case .video:
                s.video.record(packet, now: now)
                if let value = packet.extensionValue(id: ClientOffer.dependencyDescriptorExtensionID) {
                    s.describedVideo += 1
                    if value.count > 3 && value[3] & 0x40 != 0 { s.activeTargetsVideo += 1 }
                }
            case .audio: s.audio.record(packet, now: now)
            case nil: s.unknownKind += 1
            }
        }
    }

    var video: ReceivedStreamStats { snapshot.withLock { $0.video } }
    var audio: ReceivedStreamStats { snapshot.withLock { $0.audio } }
    var unknownKind: Int { snapshot.withLock { $0.unknownKind } }
    var describedVideo: Int { snapshot.withLock { $0.describedVideo } }
    var activeTargetsVideo: Int { snapshot.withLock { $0.activeTargetsVideo } }
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

    /// The same over ICE-TCP: both connect to the answer's passive TCP candidate, and ICE,
    /// DTLS, SRTP and RTCP (the player's PLI) ride RFC 4571 frames; the server's UDP socket
    /// hears nothing.
    @Test func publishAndPlayOverICETCP() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (publisherSession, publisherLog) = try await server.connectedSession()
        let publisher = try PeerConnection(configuration: .init(role: .publish, iceTransport: .tcp))
        defer { publisher.close() }
        let source = SyntheticPublisher(video: .init(width: 320, height: 240, fps: 30, bitrateKbps: 300,
                                                     keyFrameIntervalSeconds: 10))
        publisher.delegate = source
        let published = try await publisherSession.publish(stream: "cam-tcp", sdp: publisher.localDescription)
        try await publisher.setRemoteDescription(published.sdp)
        #expect(publisher.answer?.tcpCandidates.isEmpty == false)
        try await publisher.waitUntilConnected()
        _ = try await publisherLog.streamStatus(handle: published.handle, .publishing)

        let (playerSession, playerLog) = try await server.connectedSession()
        let player = try PeerConnection(configuration: .init(role: .play, iceTransport: .tcp))
        defer { player.close() }
        let recorder = PlayerRecorder()
        player.delegate = recorder
        let played = try await playerSession.play(stream: "cam-tcp", sdp: player.localDescription)
        try await player.setRemoteDescription(played.sdp)
        try await player.waitUntilConnected()
        _ = try await playerLog.streamStatus(handle: played.handle, .playing)
        // Key frames every 10 s: the one the player gets comes from its join's PLI, over TCP.
        #expect(await eventually(within: 20) {
            recorder.video.keyFrames >= 1 && recorder.video.packets >= 60 && recorder.audio.packets >= 50
        })
        let video = recorder.video, audio = recorder.audio
        #expect(video.lost == 0 && video.gaps == 0 && video.duplicates == 0 && video.reordered == 0)
        #expect(audio.lost == 0 && audio.gaps == 0 && audio.duplicates == 0)
        #expect(video.lastKeyFrameSize?.width == 320 && video.lastKeyFrameSize?.height == 240)
        let worker = server.server.media.workers[0]
        #expect(worker.tcpConnectionsOpen == 2)
        #expect(worker.datagramsIn.load(ordering: .relaxed) == 0)
        #expect(worker.tcpFramesReceived > 100 && worker.tcpFramesSent > 100)
        #expect(worker.tcpSendDroppedPackets == 0)
        try await playerSession.disconnect()
        try await publisherSession.disconnect()
    }
}

/// Control messages around a running stream: PLI from a player reaches the publisher as a key
/// frame request; mute on the publish handle reaches the player as a `streamEvent`; a play
/// with `wait: true` before anyone publishes turns PLAYING when the publisher comes.
@Suite(.serialized) struct StreamControlTests {
    @Test func waitingPlayerKeyFrameRequestAndMute() async throws {
        let server = try TestServer()
        defer { server.shutdown() }

        let (playerSession, playerLog) = try await server.connectedSession()
        let player = try PeerConnection(configuration: .init(role: .play))
        defer { player.close() }
        let recorder = PlayerRecorder()
        player.delegate = recorder
        let played = try await playerSession.play(stream: "later", sdp: player.localDescription, wait: true)
        try await player.setRemoteDescription(played.sdp)
        try await player.waitUntilConnected()
        _ = try await playerLog.streamStatus(handle: played.handle, .pending)

        let (publisherSession, publisherLog) = try await server.connectedSession()
        let publisher = try PeerConnection(configuration: .init(role: .publish))
        defer { publisher.close() }
        let source = SyntheticPublisher(video: .init(width: 160, height: 120, fps: 30, bitrateKbps: 200,
                                                     keyFrameIntervalSeconds: 60))
        publisher.delegate = source
        let published = try await publisherSession.publish(stream: "later", sdp: publisher.localDescription)
        try await publisher.setRemoteDescription(published.sdp)
        try await publisher.waitUntilConnected()
        _ = try await playerLog.streamStatus(handle: played.handle, .playing)
        #expect(await eventually { recorder.video.packets > 0 })

        // Key frames are a minute apart, so another one can only come from a request. The
        // server throttles PLIs per layer, so the player repeats its request until it is heard.
        let before = recorder.video.keyFrames
        #expect(await eventually {
            player.perform { player.requestKeyFrame() }
            usleep(50_000)
            return recorder.video.keyFrames > before
        })
        #expect(await eventually { onWorker(publisher) { publisher.keyFrameRequestsReceived } > 0 })

        try await publisherSession.mute(handle: published.handle, kind: .video)
        let muted = try await playerLog.first { n in
            if case .streamEvent(let e) = n { return e.handle == played.handle && e.type == .videoMuted }
            return false
        }
        #expect(muted == .streamEvent(StreamEvent(handle: played.handle, stream: "later", type: .videoMuted, by: "publisher")))
        try await publisherSession.unmute(handle: published.handle, kind: .video)
        _ = try await playerLog.first { n in
            if case .streamEvent(let e) = n { return e.type == .videoUnmuted && e.by == "publisher" }
            return false
        }
        _ = publisherLog
        let video = recorder.video
        #expect(video.lost == 0 && video.duplicates == 0)

        try await publisherSession.disconnect()
        let ended = try await playerLog.streamStatus(handle: played.handle, .unpublished)
        #expect(ended.info == "Stopped by publisher stop")
        try await playerSession.disconnect()
    }

    @Test func answerWithoutLoopbackCandidateIsRefused() async throws {
        let connection = try PeerConnection(configuration: .init(role: .play))
        defer { connection.close() }
        let answer = ServerAnswerTests.answer.replacingOccurrences(of: "127.0.0.1 20000", with: "0.0.0.0 20000")
            .replacingOccurrences(of: "c=IN IP4 127.0.0.1", with: "c=IN IP4 0.0.0.0")
        await #expect(throws: PeerConnectionError.noUsableCandidate) { try await connection.setRemoteDescription(answer) }
        #expect(connection.state == .new)
    }
}

/// Reads a value on the connection's worker thread.
func onWorker<T: Sendable>(_ connection: PeerConnection, _ body: @escaping @Sendable () -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    connection.perform {
        let value = body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}
