import Foundation
import SluiceClient
import SluiceRTP
import SluiceTestMedia
import SluiceTransport
import Synchronization
import Testing

/// What a joining player's video looks like from its first packet: whether that packet opens a
/// key frame, continuity, and whether a timestamp ever went back.
final class JoinRecorder: PeerConnectionDelegate, @unchecked Sendable {
    struct Snapshot {
        var video = ReceivedStreamStats(codec: .vp8)
        var firstOpensKeyFrame: Bool?
        var lastTimestamp: UInt32?
        var timestampsBack = 0
        var frames = 0
    }

    let snapshot = Mutex(Snapshot())

    func peerConnection(_ connection: PeerConnection, didReceiveRTP packet: RTPPacket, kind: TrackKind?, now: UInt64) {
        guard kind == .video, packet.payloadLength > 0 else { return }
        let descriptor = VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(packet.payload))
        snapshot.withLock { s in
            s.video.record(packet, now: now)
            if s.firstOpensKeyFrame == nil { s.firstOpensKeyFrame = descriptor?.isKeyFrame == true }
            if let last = s.lastTimestamp {
                if Int32(bitPattern: packet.timestamp &- last) < 0 { s.timestampsBack += 1 }
                if packet.timestamp != last { s.frames += 1 }
            } else {
                s.frames = 1
            }
            s.lastTimestamp = packet.timestamp
        }
    }

    var now: Snapshot { snapshot.withLock { $0 } }
}

/// Instant join through a real in-process server: a player starts from the layer's cached key
/// frame, so joining costs the publisher no key frame (docs/protocol.md section 6).
@Suite(.serialized) struct InstantJoinTests {
    struct Joined {
        let recorder: JoinRecorder
        let requestsBefore: UInt64
        let requestsAfter: UInt64
        let cacheStarts: Int64?
    }

    /// A publishing session of synthetic VP8 whose only key frame is the first (and what PLIs
    /// ask for). Close `connection` and disconnect `session` when done.
    struct Publishing {
        let session: SluiceSession
        let connection: PeerConnection
        let source: SyntheticPublisher
    }

    func publish(_ stream: String, on server: TestServer, audio: Bool = true) async throws -> Publishing {
        let (session, log) = try await server.connectedSession()
        let connection = try PeerConnection(configuration: .init(role: .publish))
        let source = SyntheticPublisher(video: .init(width: 320, height: 240, fps: 30, bitrateKbps: 300,
                                                     keyFrameIntervalSeconds: 60), audio: audio)
        connection.delegate = source
        let published = try await session.publish(stream: stream, sdp: connection.localDescription)
        try await connection.setRemoteDescription(published.sdp)
        try await connection.waitUntilConnected()
        _ = try await log.streamStatus(handle: published.handle, .publishing)
        return Publishing(session: session, connection: connection, source: source)
    }

    /// Publishes, waits `delay` seconds, then plays it and records 60 video packets.
    func join(instantJoin: Bool, delay: Double) async throws -> Joined {
        let server = try TestServer { config in config.apps[0].instantJoin = instantJoin }
        defer { server.shutdown() }
        let publishing = try await publish("join", on: server)
        defer { publishing.connection.close() }
        let (publisherSession, source) = (publishing.session, publishing.source)
        try await Task.sleep(for: .milliseconds(Int(delay * 1000)))

        let requestsBefore = source.keyFrameRequests.load(ordering: .relaxed)
        let (playerSession, playerLog) = try await server.connectedSession()
        let player = try PeerConnection(configuration: .init(role: .play))
        defer { player.close() }
        let recorder = JoinRecorder()
        player.delegate = recorder
        let played = try await playerSession.play(stream: "join", sdp: player.localDescription)
        try await player.setRemoteDescription(played.sdp)
        try await player.waitUntilConnected()
        _ = try await playerLog.streamStatus(handle: played.handle, .playing)
        #expect(await eventually(within: 20) { recorder.now.video.packets >= 60 })
        // A PLI the join caused would have reached the publisher by now.
        try await Task.sleep(for: .milliseconds(300))
        // Stats are published once a second: wait for a snapshot taken after the first packets.
        var stats = try await playerSession.getStats(handle: played.handle)
        for _ in 0..<30 where (stats["video"]?["packets"]?.intValue ?? 0) < 60 {
            try await Task.sleep(for: .milliseconds(100))
            stats = try await playerSession.getStats(handle: played.handle)
        }
        let joined = Joined(recorder: recorder, requestsBefore: requestsBefore,
                            requestsAfter: source.keyFrameRequests.load(ordering: .relaxed),
                            cacheStarts: stats["video"]?["cacheStarts"]?.intValue)
        try await playerSession.disconnect()
        try await publisherSession.disconnect()
        return joined
    }

    func expectClean(_ s: JoinRecorder.Snapshot) {
        #expect(s.firstOpensKeyFrame == true, "the player's first video packet opens a key frame")
        #expect(s.video.lost == 0 && s.video.gaps == 0 && s.video.duplicates == 0 && s.video.reordered == 0,
                "lost \(s.video.lost) gaps \(s.video.gaps) duplicates \(s.video.duplicates) reordered \(s.video.reordered)")
        #expect(s.timestampsBack == 0)
        #expect(s.video.keyFrames == 1, "one key frame, and only the first: \(s.video.keyFrames)")
    }

    /// Half a second after the publisher's key frame: the player starts from it, caught up
    /// from the cache, and the publisher is asked for nothing.
    @Test func aJoinStartsFromTheCachedKeyFrameWithoutAskingThePublisher() async throws {
        let joined = try await join(instantJoin: true, delay: 0.5)
        #expect(joined.requestsAfter == joined.requestsBefore, "PLIs during the join: \(joined.requestsAfter - joined.requestsBefore)")
        #expect(joined.cacheStarts == 1)
        expectClean(joined.recorder.now)
        // The cached frames were sent too (the catch-up), not only the key frame then live.
        #expect(joined.recorder.now.frames >= 10)
    }

    /// The cached key frame leaves when the player's keys are up, not with the layer's next
    /// live packet: with the publisher stalled after half a second, a player that joins still
    /// gets the key frame and the frames cached after it, and nothing is asked of the
    /// publisher. (Before, the walk started on the next live packet: here never.)
    @Test func theCachedKeyFrameLeavesAtConnectWithoutALivePacket() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let publishing = try await publish("stall", on: server, audio: false)
        defer { publishing.connection.close() }
        let (publisherSession, source) = (publishing.session, publishing.source)
        let (playerSession, _) = try await server.connectedSession()
        let player = try PeerConnection(configuration: .init(role: .play))
        defer { player.close() }
        let recorder = JoinRecorder()
        player.delegate = recorder
        // A fresh key frame and a few frames after it, then the stall: a join may start from
        // a key frame up to 3 s old, and the session set-up above can take that long when
        // the whole suite runs at once on two cores.
        let framesBefore = source.framesSent.load(ordering: .relaxed)
        source.keyFrameWanted.store(true, ordering: .relaxed)
        #expect(await eventually(within: 10) { source.framesSent.load(ordering: .relaxed) >= framesBefore + 6 })
        source.paused.store(true, ordering: .relaxed)
        let stalled = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(200))
        let requestsBefore = source.keyFrameRequests.load(ordering: .relaxed)

        let played = try await playerSession.play(stream: "stall", sdp: player.localDescription)
        try await player.setRemoteDescription(played.sdp)
        try await player.waitUntilConnected()
        let keyFrameAge = ContinuousClock.now - stalled
        // Every frame cached since the key frame (6 or more at 30 fps), caught up at the pace.
        #expect(await eventually(within: 20) { recorder.now.frames >= 6 },
                "frames: \(recorder.now.frames), connected \(keyFrameAge) after the stall")
        let s = recorder.now
        #expect(s.firstOpensKeyFrame == true)
        #expect(s.video.lost == 0 && s.video.gaps == 0 && s.timestampsBack == 0)
        let requests = source.keyFrameRequests.load(ordering: .relaxed) - requestsBefore
        #expect(requests == 0, "key frames asked of the stalled publisher: \(requests)")
        try await playerSession.disconnect()
        try await publisherSession.disconnect()
    }

    /// The control: with `instantJoin: false` the same join asks for a key frame.
    @Test func withoutInstantJoinTheJoinAsksForAKeyFrame() async throws {
        let joined = try await join(instantJoin: false, delay: 0.5)
        #expect(joined.requestsAfter > joined.requestsBefore)
        #expect(joined.cacheStarts == 0)
        expectClean(joined.recorder.now)
    }

    /// A key frame older than the cache's 3 s starts nobody: the publisher is asked, and the
    /// player starts on the fresh key frame.
    @Test func aKeyFrameOlderThanTheBoundIsNotUsed() async throws {
        let joined = try await join(instantJoin: true, delay: 3.6)
        #expect(joined.requestsAfter > joined.requestsBefore)
        #expect(joined.cacheStarts == 0)
        expectClean(joined.recorder.now)
    }
}
