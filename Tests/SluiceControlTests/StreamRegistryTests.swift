@testable import SluiceControl
import SluiceMedia
import SluiceVocabulary
import Testing

/// The stream registry's rules on their own: 1003/1004 and the limits, what a handle's end
/// does to its stream, PLAYING/PUBLISHING once, and the mute policy, with what each handle's
/// session is told. No engine: handles are added as `publish` and `play` add them.
@Suite(.serialized) final class StreamRegistryTests {
    let parts: ControlParts
    var registry: StreamRegistry { parts.registry }

    init() throws {
        parts = try ControlParts(maxStreams: 2, maxPlayersPerStream: 2)
    }

    deinit { parts.stop() }

    @Test func aNameHasOnePublisherAtATime() throws {
        try registry.checkNameFree("cam")
        let publisher = parts.publish("cam")
        #expect(throws: MediaError.streamNameInUse) { try self.registry.checkNameFree("cam") }
        try registry.checkNameFree("other")
        _ = registry.end(publisher, info: StatusInfo.user)
        try registry.checkNameFree("cam")
        #expect(registry.publishedNames.isEmpty)
    }

    /// 1004 for a name nobody publishes, unless the player waits or another node publishes it.
    @Test func aPlayNeedsAPublisherHereOrElsewhereOrToWait() throws {
        #expect(throws: MediaError.streamNotFound) { try self.registry.checkPlayer(of: "cam", wait: false, relayed: false) }
        try registry.checkPlayer(of: "cam", wait: true, relayed: false)
        try registry.checkPlayer(of: "cam", wait: false, relayed: true)
        parts.publish("cam")
        try registry.checkPlayer(of: "cam", wait: false, relayed: false)
    }

    /// A waiting player opens a stream entry, which counts against `maxStreams` as a
    /// publisher's does; a publisher of a name players wait for opens none.
    @Test func theLimitsCountStreamEntriesAndPlayers() throws {
        parts.play("a", handle: "play-a1", wait: true)
        parts.play("b", handle: "play-b1", wait: true)
        try registry.checkRoomForPublisher(of: "a")
        #expect(throws: MediaError.limitReached("Too many streams (limits.maxStreams is 2)")) {
            try self.registry.checkRoomForPublisher(of: "c")
        }
        #expect(throws: MediaError.limitReached("Too many streams (limits.maxStreams is 2)")) {
            try self.registry.checkPlayer(of: "c", wait: true, relayed: false)
        }
        parts.play("a", handle: "play-a2", wait: true)
        #expect(throws: MediaError.limitReached("Too many players (limits.maxPlayersPerStream is 2)")) {
            try self.registry.checkPlayer(of: "a", wait: true, relayed: false)
        }
        #expect(registry.streamCount == 2 && registry.handleCount == 3)
    }

    /// The publisher's end: its own status, then its players': a waiting one is told and
    /// stays, the other ends. The entry lasts while the waiting player does.
    @Test func aPublishersEndTellsItsPlayers() throws {
        let publisher = parts.publish("cam", session: "pubs")
        let waiting = parts.play("cam", handle: "play-w", session: "w", wait: true)
        let plain = parts.play("cam", handle: "play-p", session: "p")
        _ = parts.events()

        let ended = try #require(registry.end(publisher, info: StatusInfo.sessionDisconnect))
        #expect(ended.stream == "cam" && !ended.streamGone && !ended.dataChannels)
        let told = parts.statuses()
        #expect(told.map(\.handle) == [publisher, waiting, plain])
        #expect(told[0].status == .unpublished && told[0].info == StatusInfo.sessionDisconnect && told[0].ends)
        #expect(told[1].status == .unpublished && told[1].info == StatusInfo.publisherStop && !told[1].ends)
        #expect(told[2].status == .unpublished && told[2].info == StatusInfo.publisherStop && told[2].ends)
        #expect(registry.contains(waiting) && !registry.contains(plain))
        #expect(registry.unpublishedStreams == ["cam"])

        let last = try #require(registry.end(waiting, info: StatusInfo.user))
        #expect(last.streamGone)
        #expect(parts.statuses().map(\.status) == [.stopped])
        #expect(registry.streamCount == 0 && registry.handleCount == 0)
    }

    @Test func aFailureEndsWithFailedAndAnUnknownHandleWithNothing() throws {
        let player = parts.play("cam", handle: "play-1", wait: true, dataChannels: true)
        #expect(registry.hasDataChannelPlayers("cam"))
        _ = parts.events()
        let ended = try #require(registry.end(player, info: StatusInfo.failure(.iceTimeout)))
        #expect(ended.streamGone && ended.dataChannels)
        #expect(parts.statuses().map(\.status) == [.failed])
        #expect(registry.end(player, info: StatusInfo.user) == nil)
        #expect(parts.events().isEmpty)
    }

    /// Edge: the stream another node published ended. Its players are told with the cause;
    /// the entry stays for a waiting player and goes with the last.
    @Test func aRelayedStreamsEndKeepsOnlyItsWaitingPlayers() {
        let waiting = parts.play("cam", handle: "play-w", wait: true)
        let plain = parts.play("cam", handle: "play-p")
        parts.play("solo", handle: "play-s")
        _ = parts.events()
        registry.relayEnded("cam", info: StatusInfo.originNodeLoss)
        registry.relayEnded("solo", info: StatusInfo.publisherStop)
        let told = parts.statuses()
        #expect(told.map(\.handle) == [waiting, plain, "play-s"])
        #expect(told[0].info == StatusInfo.originNodeLoss && !told[0].ends)
        #expect(told[1].info == StatusInfo.originNodeLoss && told[1].ends)
        #expect(told[2].info == StatusInfo.publisherStop && told[2].ends)
        #expect(registry.streamNames == ["cam"] && registry.hasPlayers("cam") && !registry.hasPlayers("solo"))
    }

    /// PUBLISHING and PLAYING are said once; a waiting player's UNPUBLISHED lets PLAYING come
    /// again with the next source. An event of the other role's is ignored.
    @Test func publishingAndPlayingAreSaidOncePerSource() {
        let publisher = parts.publish("cam")
        let player = parts.play("cam", handle: "play-1", wait: true)
        _ = parts.events()
        registry.publishing(publisher)
        registry.publishing(publisher)
        registry.playing(player)
        registry.playing(player)
        registry.publishing(player)
        registry.playing(publisher)
        #expect(parts.statuses().map(\.status) == [.publishing, .playing])
        _ = registry.end(publisher, info: StatusInfo.user)
        parts.publish("cam", handle: "pub-2")
        _ = parts.events()
        registry.playing(player)
        #expect(parts.statuses().map(\.status) == [.playing])
    }

    /// What players get changes the stream's mute for its relay links too; a player's own
    /// mute, or a server unmute under the publisher's own mute, changes nothing for them.
    @Test func theLinksHearOfWhatEveryPlayerGets() throws {
        var told: [String] = []
        registry.publisherMuteChanged = { told.append($0) }
        let publisher = parts.publish("cam")
        let player = parts.play("cam", handle: "play-1")
        _ = parts.events()

        try registry.setMuted(handle: publisher, kind: .audio, muted: true)
        #expect(told == ["cam"])
        #expect(parts.streamEvents().map { "\($0.handle) \($0.type) \($0.by ?? "")" }
            == ["pub-1 audioMuted publisher", "play-1 audioMuted publisher"])
        try registry.setMuted(handle: player, kind: .video, muted: true)
        #expect(parts.streamEvents().map { "\($0.handle) \($0.type) \($0.by ?? "")" } == ["play-1 videoMuted player"])
        try registry.setServerMuted(stream: "cam", kind: .audio, muted: true)
        try registry.setServerMuted(stream: "cam", kind: .audio, muted: false)
        #expect(told == ["cam"])
        #expect(parts.streamEvents().isEmpty)

        try registry.setServerMuted(stream: "cam", kind: .video, muted: true)
        #expect(told == ["cam", "cam"])
        #expect(throws: MediaError.restrictedAccess) {
            try self.registry.setMuted(handle: publisher, kind: .video, muted: false)
        }
        #expect(registry.linkMute(of: "cam") == LinkMuteState(audioByPublisher: true, videoByServer: true))
        #expect(throws: MediaError.unknownHandle) { try self.registry.setMuted(handle: "pub-x", kind: .audio, muted: true) }
        #expect(throws: MediaError.streamNotFound) {
            try self.registry.setServerMuted(stream: "nobody", kind: .audio, muted: true)
        }
    }

    /// Edge: the origin's mute state reaches the players here with the same `by`; a change
    /// of who mutes that leaves the kind muted says nothing.
    @Test func anEdgeTakesTheOriginsMuteState() {
        var told: [String] = []
        registry.publisherMuteChanged = { told.append($0) }
        parts.play("cam", handle: "play-1", wait: true)
        _ = parts.events()
        registry.applyLinkMute("cam", LinkMuteState(audioByServer: true))
        registry.applyLinkMute("cam", LinkMuteState(audioByServer: true))
        registry.applyLinkMute("cam", LinkMuteState(audioByPublisher: true))
        registry.applyLinkMute("cam", LinkMuteState())
        #expect(parts.streamEvents().map { "\($0.type) \($0.by ?? "")" } == ["audioMuted server", "audioUnmuted publisher"])
        #expect(told.isEmpty, "no publisher here: no link of this node carries the stream")
    }

    @Test func viewsAndStatsShowEachHandle() throws {
        let publisher = parts.publish("cam", session: "pubs")
        parts.play("cam", handle: "play-1", session: "p")
        let view = try #require(registry.streamView("cam"))
        #expect(view.publisher?.handle == publisher && view.publisherSession == "pubs")
        #expect(view.players.map(\.handle) == ["play-1"] && view.players.first?.worker == 0)
        #expect(try registry.stats(publisher).role == .publish)
        #expect(throws: MediaError.unknownHandle) { try self.registry.stats("pub-x") }
        #expect(registry.sessions == ["pubs", "p"] && registry.handleWorkers == [0, 0])
        #expect(registry.handles(ownedBy: "p").map(\.role) == [.play])
        #expect(registry.handleRoles().map(\.handle) == ["play-1", publisher])
        #expect(registry.publisher(of: "cam")?.session == "pubs" && registry.publisherTracks(of: "cam")?.audio != nil)
    }
}
