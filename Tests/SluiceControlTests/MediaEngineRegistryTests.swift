import SluiceControl
import SluiceMedia
import SluiceVocabulary
import SluiceWire
import Testing

/// The control plane's decisions, with no peer: the stream registry (1003, 1004), the limits,
/// mute policy and what each typed worker event becomes. The engine binds one worker to an
/// ephemeral port on 127.0.0.1, but no packet is sent: every decision here is made on the
/// calling thread before any worker is involved.
@Suite(.serialized) final class MediaEngineRegistryTests {
    let engine: MediaEngine

    init() throws {
        engine = try Self.engine()
    }

    deinit { engine.shutdown() }

    static func engine(maxStreams: Int = 1000, maxPlayersPerStream: Int = 500) throws -> MediaEngine {
        let config = MediaEngineConfig(bindAddress: SocketAddress(host: "127.0.0.1", port: 0)!, basePort: 0, workers: 1,
                                       announcedAddresses: ["127.0.0.1"], maxStreams: maxStreams,
                                       maxPlayersPerStream: maxPlayersPerStream)
        return try MediaEngine(config: config)
    }

    /// A minimal browser-like offer: one Opus m-line, BUNDLE, rtcp-mux.
    static func offer(direction: String) -> String {
        [
            "v=0", "o=- 7 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE a",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0",
            "a=ice-ufrag:cliU", "a=ice-pwd:clientpasswordclientpass",
            "a=fingerprint:sha-256 11:22:33:44:55:66:77:88:99:00:11:22:33:44:55:66:77:88:99:00:11:22:33:44:55:66:77:88:99:00:11:22",
            "a=setup:actpass", "a=mid:a", "a=\(direction)", "a=rtcp-mux", "a=rtpmap:111 opus/48000/2",
            "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level", "",
        ].joined(separator: "\r\n")
    }

    func publish(_ stream: String, session: SessionID = "s1") throws(MediaError) -> MediaAnswer {
        try engine.publish(PublishRequest(session: session, stream: stream, offer: Self.offer(direction: "sendonly"),
                                          constraints: StreamConstraints(video: nil)))
    }

    func play(_ stream: String, session: SessionID = "s2", wait: Bool = false) throws(MediaError) -> MediaAnswer {
        try engine.play(PlayRequest(session: session, stream: stream, offer: Self.offer(direction: "recvonly"),
                                    constraints: StreamConstraints(video: nil), wait: wait))
    }

    /// Every event queued so far, in order.
    func drain() -> [MediaEvent] {
        var out: [MediaEvent] = []
        engine.drainEvents { out.append($0) }
        return out
    }

    /// The (handle, status, info, ends) of each status event.
    func statuses(_ events: [MediaEvent]) -> [(StreamHandle, StreamStatus, String?, Bool)] {
        events.compactMap {
            if case .streamStatus(_, let handle, _, _, let status, let info, let ends) = $0 { return (handle, status, info, ends) }
            return nil
        }
    }

    /// The (handle, type, by, data) of each stream event.
    func streamEvents(_ events: [MediaEvent]) -> [(StreamHandle, String, String?, [String: StreamEventValue])] {
        events.compactMap {
            if case .streamEvent(_, let handle, _, let type, let by, let data) = $0 { return (handle, type, by, data) }
            return nil
        }
    }

    @Test func publishAnswersAtOnceAndIsPending() throws {
        let answer = try publish("cam")
        #expect(answer.handle.hasPrefix("pub-"))
        #expect(answer.sdp.contains("a=recvonly"))
        let events = statuses(drain())
        #expect(events.count == 1)
        #expect(events.first?.0 == answer.handle && events.first?.1 == .pending && events.first?.3 == false)
        #expect(engine.streamNames == ["cam"])
    }

    /// 1003: a second publisher of a live name is refused; the first keeps it.
    @Test func secondPublisherOfANameIsRefused() throws {
        _ = try publish("cam")
        #expect(throws: MediaError.streamNameInUse) { try self.publish("cam", session: "other") }
        #expect(engine.streamNames == ["cam"])
    }

    /// 1004: a play of a name nobody publishes fails, unless it asks to wait.
    @Test func playOfAnUnpublishedName() throws {
        #expect(throws: MediaError.streamNotFound) { try self.play("nobody") }
        let waiting = try play("nobody", wait: true)
        #expect(waiting.handle.hasPrefix("play-"))
        #expect(waiting.sdp.contains("a=sendonly"))
        #expect(engine.streamNames.isEmpty)
    }

    /// Several players wait for one name before it is published, and one more after its
    /// publisher left: each is answered from its offer (not 1005 for the entry's empty tracks).
    @Test func severalPlayersWaitForOneName() throws {
        let first = try play("later", session: "w1", wait: true)
        let second = try play("later", session: "w2", wait: true)
        #expect(first.sdp.contains("a=rtpmap:111 opus/48000/2") && second.sdp.contains("a=rtpmap:111 opus/48000/2"))
        _ = try publish("later", session: "pubs")
        engine.endSession("pubs")
        let third = try play("later", session: "w3", wait: true)
        #expect(third.sdp.contains("a=rtpmap:111 opus/48000/2"))
    }

    @Test func maxStreams() throws {
        let limited = try Self.engine(maxStreams: 1)
        defer { limited.shutdown() }
        _ = try limited.publish(PublishRequest(session: "s", stream: "one", offer: Self.offer(direction: "sendonly"),
                                               constraints: StreamConstraints(video: nil)))
        #expect(throws: MediaError.limitReached("Too many streams (limits.maxStreams is 1)")) {
            try limited.publish(PublishRequest(session: "s", stream: "two", offer: Self.offer(direction: "sendonly"),
                                               constraints: StreamConstraints(video: nil)))
        }
        // A waiting player would open a second stream entry: the same limit.
        #expect(throws: MediaError.limitReached("Too many streams (limits.maxStreams is 1)")) {
            try limited.play(PlayRequest(session: "s", stream: "two", offer: Self.offer(direction: "recvonly"),
                                         constraints: StreamConstraints(video: nil), wait: true))
        }
    }

    @Test func maxPlayersPerStream() throws {
        let limited = try Self.engine(maxPlayersPerStream: 1)
        defer { limited.shutdown() }
        func play() throws(MediaError) -> MediaAnswer {
            try limited.play(PlayRequest(session: "p", stream: "cam", offer: Self.offer(direction: "recvonly"),
                                         constraints: StreamConstraints(video: nil), wait: true))
        }
        _ = try play()
        #expect(throws: MediaError.limitReached("Too many players (limits.maxPlayersPerStream is 1)")) { try play() }
    }

    @Test func badOffers() {
        #expect(throws: MediaError.self) {
            try self.engine.publish(PublishRequest(session: "s", stream: "x", offer: "not sdp",
                                                   constraints: StreamConstraints(video: nil)))
        }
        // A publisher that offers to receive only: the direction does not fit the role.
        #expect(throws: MediaError.self) {
            try self.engine.publish(PublishRequest(session: "s", stream: "x", offer: Self.offer(direction: "recvonly"),
                                                   constraints: StreamConstraints(video: nil)))
        }
        #expect(engine.streamNames.isEmpty)
    }

    @Test func unknownHandles() {
        #expect(throws: MediaError.unknownHandle) { try self.engine.stop(handle: "pub-nope") }
        #expect(throws: MediaError.unknownHandle) { try self.engine.stats(handle: "pub-nope") }
        #expect(throws: MediaError.unknownHandle) { try self.engine.requestKeyFrame(handle: "pub-nope") }
        #expect(throws: MediaError.unknownHandle) { try self.engine.setMuted(handle: "pub-nope", kind: .audio, muted: true) }
        #expect(throws: MediaError.streamNotFound) { try self.engine.terminate(stream: "nope") }
        #expect(throws: MediaError.streamNotFound) { try self.engine.setServerMuted(stream: "nope", kind: .audio, muted: true) }
    }

    /// A publisher that leaves: it is UNPUBLISHED by session disconnect, a waiting player is
    /// told (and stays), a player that did not wait ends with it.
    @Test func publisherLeaves() throws {
        let publisher = try publish("cam", session: "pubs")
        let waiting = try play("cam", session: "w", wait: true)
        let plain = try play("cam", session: "p")
        _ = drain()
        engine.endSession("pubs")
        let events = statuses(drain())
        #expect(events.count == 3)
        #expect(events.contains { $0.0 == publisher.handle && $0.1 == .unpublished && $0.2 == "Stopped by session disconnect" && $0.3 })
        #expect(events.contains { $0.0 == waiting.handle && $0.1 == .unpublished && $0.2 == "Stopped by publisher stop" && !$0.3 })
        #expect(events.contains { $0.0 == plain.handle && $0.1 == .unpublished && $0.2 == "Stopped by publisher stop" && $0.3 })
        #expect(engine.streamNames.isEmpty)
        // The name is free again, and the waiting player still counts for it.
        _ = try publish("cam", session: "again")
    }

    @Test func stopAndTerminate() throws {
        let player = try play("cam", wait: true)
        let publisher = try publish("cam")
        _ = drain()
        try engine.stop(handle: player.handle)
        try engine.terminate(stream: "cam")
        let events = statuses(drain())
        #expect(events.map(\.0) == [player.handle, publisher.handle])
        #expect(events[0].1 == .stopped && events[0].2 == "Stopped by user" && events[0].3)
        #expect(events[1].1 == .unpublished && events[1].2 == "Stopped by rest /terminate" && events[1].3)
    }

    /// The publisher's own mute reaches the publisher and every player; a moderator's mute
    /// outranks it and the publisher cannot lift it (restricted access).
    @Test func mutePolicy() throws {
        let publisher = try publish("cam")
        let player = try play("cam")
        _ = drain()
        try engine.setMuted(handle: publisher.handle, kind: .audio, muted: true)
        var events = streamEvents(drain())
        #expect(events.map(\.0) == [publisher.handle, player.handle])
        #expect(events.allSatisfy { $0.1 == "audioMuted" && $0.2 == "publisher" && $0.3.isEmpty })

        try engine.setServerMuted(stream: "cam", kind: .video, muted: true)
        events = streamEvents(drain())
        #expect(events.map(\.1) == ["videoMuted", "videoMuted"] && events.allSatisfy { $0.2 == "server" })
        #expect(throws: MediaError.restrictedAccess) {
            try self.engine.setMuted(handle: publisher.handle, kind: .video, muted: false)
        }
        // Lifting the server mute under the publisher's own audio mute changes nothing players get.
        try engine.setServerMuted(stream: "cam", kind: .audio, muted: true)
        try engine.setServerMuted(stream: "cam", kind: .audio, muted: false)
        #expect(streamEvents(drain()).isEmpty)

        // A player's own mute is its own business.
        try engine.setMuted(handle: player.handle, kind: .video, muted: true)
        events = streamEvents(drain())
        #expect(events.count == 1 && events[0].0 == player.handle && events[0].1 == "videoMuted" && events[0].2 == "player")
        let view = try #require(engine.streamView("cam"))
        #expect(view.audioMuted == MuteState(byPublisher: true, byServer: false))
        #expect(view.videoMuted == MuteState(byPublisher: false, byServer: true))
    }

    /// A waiting player's PLAYING comes again after its UNPUBLISHED, and only then.
    @Test func aWaitingPlayerIsToldPlayingAgainAfterUnpublished() throws {
        let first = try publish("cam")
        let player = try play("cam", wait: true)
        engine.post(.playing(player.handle))
        _ = drain()
        try engine.stop(handle: first.handle)
        #expect(statuses(drain()).filter { $0.0 == player.handle }.map(\.1) == [.unpublished])
        _ = try publish("cam", session: "s3")
        engine.post(.playing(player.handle))
        engine.post(.playing(player.handle))
        #expect(statuses(drain()).filter { $0.0 == player.handle }.map(\.1) == [.playing])
    }

    /// Typed worker events through the engine: to one handle, stream-wide, and a failure.
    @Test func workerEventsBecomeNotifications() throws {
        let publisher = try publish("cam")
        let player = try play("cam")
        _ = drain()

        engine.post(.publishing(publisher.handle))
        engine.post(.publishing(publisher.handle))  // announced once
        engine.post(.playing(player.handle))
        // A new source for the same player (a relay link made again on an edge): PLAYING once.
        engine.post(.playing(player.handle))
        var status = statuses(drain())
        #expect(status.map(\.0) == [publisher.handle, player.handle])
        #expect(status.map(\.1) == [.publishing, .playing])

        engine.post(.layerChanged(player.handle, layer: 1, width: 640, height: 360, reason: .bandwidth))
        engine.post(.resize(stream: "cam", width: 1280, height: 720))
        engine.post(.notEnoughBandwidth("play-gone", kbps: 50))  // a handle that ended: dropped
        let events = streamEvents(drain())
        #expect(events.map(\.0) == [player.handle, publisher.handle, player.handle])
        #expect(events[0].1 == "layerChanged" && events[0].2 == nil && events[0].3["reason"] == .string("bandwidth"))
        #expect(events[1].1 == "resize" && events[1].2 == "publisher" && events[1].3 == ["width": .int(1280), "height": .int(720)])

        engine.post(.failed(publisher.handle, .limitExceeded(.maxWidth)))
        status = statuses(drain())
        #expect(status.count == 2)
        #expect(status[0].0 == publisher.handle && status[0].1 == .failed && status[0].2 == "Failed by limit maxWidth" && status[0].3)
        #expect(status[1].0 == player.handle && status[1].1 == .unpublished && status[1].2 == "Stopped by publisher stop")

        let lonely = try play("other", wait: true)
        _ = drain()
        engine.post(.failed(lonely.handle, .iceTimeout))
        status = statuses(drain())
        #expect(status.count == 1 && status[0].1 == .failed && status[0].2 == "Failed by ICE timeout" && status[0].3)
    }
}
