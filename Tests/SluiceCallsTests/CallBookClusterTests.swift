import SluiceCalls
import SluiceVocabulary
import Testing

/// The call book in a cluster: remote sessions from the presence, rung and taken over like
/// local ones; a node's death loses its sessions at once; busy across nodes.
@Suite struct CallBookClusterTests {
    /// alice here (A); bob on node2 (B2) and node3 (B3).
    func clusterBook() -> (CallBook, TestClock) {
        let (book, clock) = makeBook()
        _ = book.sessionOnline("A", user: user("alice"))
        _ = book.syncRemote([RemoteSession(session: "B2", user: user("bob"), node: "node2"),
                             RemoteSession(session: "B3", user: user("bob"), node: "node3")],
                            liveNodes: ["node2", "node3"])
        return (book, clock)
    }

    @Test func aCallRingsEveryRemoteDeviceAndOnlineUsersListsRemoteUsers() throws {
        let (book, _) = clusterBook()
        #expect(book.onlineUsers(appKey: app) == ["alice", "bob"])
        #expect(book.node(of: "B2") == "node2" && book.node(of: "B3") == "node3" && book.node(of: "A") == nil)
        let (id, effects) = try book.call(from: "A", to: "bob", video: true, audio: true)
        #expect(effects.contains(.incomingCall(session: "B2", callID: id)))
        #expect(effects.contains(.incomingCall(session: "B3", callID: id)))
        let accepted = try book.accept(id, by: "B3")
        #expect(accepted.contains(.status(session: "B2", callID: id, status: .ended, by: "bob",
                                          endResult: .otherDeviceAccepted, media: nil)))
        #expect(accepted.contains(.status(session: "B3", callID: id, status: .connecting, by: "bob",
                                          endResult: nil, media: .callee)))
    }

    @Test func aDeadNodesDeviceEndsTheCallAtOnceAndALeftSessionWaits() throws {
        let (book, _) = clusterBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        _ = try book.accept(id, by: "B3")
        // node2's session leaves (node alive): it was only ringing; nothing ends.
        var effects = book.syncRemote([RemoteSession(session: "B3", user: user("bob"), node: "node3")],
                                      liveNodes: ["node2", "node3"])
        #expect(effects.isEmpty)
        #expect(book.call(id)?.hasEnded == false)
        // node3 dies: bob's device is lost at once, no reconnect wait.
        effects = book.syncRemote([], liveNodes: ["node2"])
        #expect(book.call(id)?.endResult == .connectionLost)
        #expect(effects.contains(.status(session: "A", callID: id, status: .ended, by: nil, endResult: .connectionLost, media: nil)))
        #expect(book.onlineUsers(appKey: app) == ["alice"])
    }

    @Test func aDeviceWhoseSessionLeftALiveNodeWaitsForItsUser() throws {
        let (book, clock) = clusterBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        _ = try book.accept(id, by: "B3")
        _ = book.syncRemote([RemoteSession(session: "B2", user: user("bob"), node: "node2")], liveNodes: ["node2", "node3"])
        #expect(book.call(id)?.hasEnded == false, "waits reconnectSeconds")
        // bob comes back on node2 with a new session: it takes the call over.
        let back = book.syncRemote([RemoteSession(session: "B2", user: user("bob"), node: "node2"),
                                    RemoteSession(session: "B9", user: user("bob"), node: "node2")], liveNodes: ["node2", "node3"])
        #expect(back.contains(.status(session: "B9", callID: id, status: .connecting, by: nil, endResult: nil, media: .callee)))
        clock.advance(seconds: 5)
        #expect(book.tick().isEmpty)
        #expect(book.call(id)?.calleeSession == "B9")
    }

    @Test func aUserInACallElsewhereIsBusy() throws {
        let (book, _) = makeBook()
        _ = book.sessionOnline("A", user: user("alice"))
        let other = String(repeating: "e", count: 32)
        _ = book.syncRemote([RemoteSession(session: "B2", user: user("bob"), node: "node2", calls: [other])],
                            liveNodes: ["node2"])
        let (id, effects) = try book.call(from: "A", to: "bob", video: true, audio: true)
        #expect(book.call(id)?.endResult == .busy, "\(effects)")
        // Once bob's node says the call is over, he can be called.
        _ = book.syncRemote([RemoteSession(session: "B2", user: user("bob"), node: "node2")], liveNodes: ["node2"])
        let (again, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        #expect(book.call(again)?.status == .ringing)
    }

    @Test func aRemoteSessionThatActsBeforeThePresenceListsItIsKept() throws {
        let (book, _) = makeBook()
        _ = book.sessionOnline("A", user: user("alice"))
        _ = book.rememberRemote("B7", user: user("bob"), node: "node7")
        // A listing older than the session: not taken for its end.
        _ = book.syncRemote([], liveNodes: ["node7"])
        #expect(book.node(of: "B7") == "node7")
        #expect(book.onlineUsers(appKey: app) == ["alice", "bob"])
    }
}

/// A node's mirrors of calls homed elsewhere.
@Suite struct CallMirrorsTests {
    let summary = CallSummary(id: String(repeating: "a", count: 32), home: "node1", appKey: app, caller: "alice",
                              callee: "bob", video: true, audio: true, customJSON: "{}", startedAt: 1000,
                              answeredAt: nil, nodes: ["node2", "node3"])

    @Test func theDeviceMayUseItsStreamsAndTheRingerMayNot() {
        let clock = TestClock()
        let mirrors = CallMirrors(monoMicros: { clock.mono })
        mirrors.told("B3", summary: summary, side: .callee, status: .ringing, media: nil)
        mirrors.told("B3b", summary: summary, side: .callee, status: .ringing, media: nil)
        #expect(!mirrors.mayUse(stream: summary.stream(.callee), publish: true, session: "B3"))
        mirrors.told("B3", summary: summary, side: .callee, status: .connecting, media: .callee)
        mirrors.told("B3b", summary: summary, side: .callee, status: .ended, media: nil, endResult: .otherDeviceAccepted)
        #expect(mirrors.mayUse(stream: summary.stream(.callee), publish: true, session: "B3"))
        #expect(mirrors.mayUse(stream: summary.stream(.caller), publish: false, session: "B3"))
        #expect(!mirrors.mayUse(stream: summary.stream(.caller), publish: true, session: "B3"))
        #expect(!mirrors.mayUse(stream: summary.stream(.callee), publish: true, session: "B3b"))
        #expect(mirrors.home(of: summary.id) == "node1")
        #expect(mirrors.activeCalls(of: "B3") == [summary.id])
    }

    @Test func aLostHomeEndsTheCallOnceAndOneNodeLogsIt() {
        let clock = TestClock()
        let onNode2 = CallMirrors(monoMicros: { clock.mono })
        let onNode3 = CallMirrors(monoMicros: { clock.mono })
        onNode2.told("B2", summary: summary, side: .callee, status: .ringing, media: nil)
        onNode3.told("B3", summary: summary, side: .callee, status: .ringing, media: nil)
        let two = onNode2.homesLost(liveNodes: ["node2", "node3"], me: "node2")
        let three = onNode3.homesLost(liveNodes: ["node2", "node3"], me: "node3")
        #expect(two.count == 1 && two[0].logs, "node2, first of the call's live nodes, logs it")
        #expect(three.count == 1 && !three[0].logs)
        #expect(onNode2.homesLost(liveNodes: ["node2"], me: "node2").isEmpty, "once")
        #expect(onNode2.home(of: summary.id) == nil)
        clock.advance(seconds: 61)
        onNode2.tick()
        #expect(onNode2.mirrors.isEmpty)
    }
}
