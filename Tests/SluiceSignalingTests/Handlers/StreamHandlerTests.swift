import SluiceControl
import SluiceJSON
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

/// A name registry that answers every claim the same way and records what it hears.
final class FixedNameRegistry: StreamNameRegistry {
    var answer: StreamNameClaim
    private(set) var released: [String] = []
    private(set) var published: [String] = []
    private(set) var reports: [(sessions: Int, streams: Int, players: Int)] = []

    init(_ answer: StreamNameClaim) { self.answer = answer }

    func claim(stream: String, app: String) -> StreamNameClaim { answer }
    func release(stream: String) { released.append(stream) }
    func report(sessions: Int, streams: Int, players: Int) { reports.append((sessions, streams, players)) }
    func published(stream: String) { published.append(stream) }
    func serviceWoke() {}
}

@Suite struct StreamHandlerTests {
    private func publish(_ handler: StreamHandler, _ session: RPCSession, _ id: SessionID,
                         stream: String = "cam") throws(RPCError) -> JSONValue {
        var followUp = SessionManager.FollowUp.none
        return try handler.publish(RPCParams(["stream": .string(stream), "sdp": "v=0"]), id: 1, session: session,
                                   sessionID: id, followUp: &followUp)
    }

    @Test func aPublishWithoutHooksStartsAtOnceAndStopEndsItsHandle() throws {
        let fixture = HandlerFixture()
        let handler = StreamHandler(table: fixture.table, hooks: fixture.hooks)
        let (session, _) = fixture.connected("s1")
        let result = try publish(handler, session, "s1")
        let handle = try #require(result.objectValue?["handle"]?.stringValue)
        #expect(session.handles[handle] == RPCSession.HandleRecord(role: .publish, stream: "cam"))
        #expect(fixture.media.publishRequests.map(\.stream) == ["cam"])
        _ = try handler.stop(RPCParams(["handle": .string(handle)]), session: session)
        #expect(session.handles.isEmpty)
        #expect(rpcError { _ = try handler.stop(RPCParams(["handle": .string(handle)]), session: session) }?.code == 1007)
    }

    @Test func theTokensGrantsAreCheckedBeforeTheEngine() {
        let fixture = HandlerFixture()
        let handler = StreamHandler(table: fixture.table, hooks: fixture.hooks)
        let (session, _) = fixture.connected("s1", grants: AccessGrants(publish: [], play: [], record: false, admin: false))
        #expect(rpcError { _ = try publish(handler, session, "s1") }?.code == 1012)
        #expect(fixture.media.publishRequests.isEmpty)
    }

    @Test func aNameAnotherNodePublishesIsInUseAndAClaimGoesBackWithItsHandle() throws {
        let fixture = HandlerFixture()
        let handler = StreamHandler(table: fixture.table, hooks: fixture.hooks)
        let registry = FixedNameRegistry(.inUse(byNode: "n2"))
        handler.nameRegistry = registry
        let (session, _) = fixture.connected("s1")
        #expect(rpcError { _ = try publish(handler, session, "s1") }?.code == 1003)
        #expect(fixture.media.publishRequests.isEmpty)

        registry.answer = .claimed
        let handle = try #require(try publish(handler, session, "s1").objectValue?["handle"]?.stringValue)
        #expect(handler.claimedNames == ["cam": handle])
        #expect(registry.published == ["cam"])
        handler.releaseName(after: .streamStatus(session: "s1", handle: handle, stream: "cam", role: .publish,
                                                 status: .unpublished, info: nil, ends: true))
        #expect(handler.claimedNames.isEmpty)
        #expect(registry.released == ["cam"])
    }

    @Test func theLoadFiguresGoToTheRegistryAtMostOnceASecond() {
        let fixture = HandlerFixture()
        let handler = StreamHandler(table: fixture.table, hooks: fixture.hooks)
        let registry = FixedNameRegistry(.claimed)
        handler.nameRegistry = registry
        let (session, _) = fixture.connected("s1")
        session.handles["h1"] = RPCSession.HandleRecord(role: .publish, stream: "cam")
        session.handles["h2"] = RPCSession.HandleRecord(role: .play, stream: "other")
        handler.reportFigures()
        handler.reportFigures()
        fixture.clock.advance(seconds: 1)
        handler.reportFigures()
        #expect(registry.reports.count == 2)
        #expect(registry.reports.first.map { [$0.sessions, $0.streams, $0.players] } == [1, 1, 1])
    }

    @Test func anEndingStatusGoesToItsSessionAndForgetsTheHandle() {
        let fixture = HandlerFixture()
        let handler = StreamHandler(table: fixture.table, hooks: fixture.hooks)
        let (session, output) = fixture.connected("s1")
        session.handles["h1"] = RPCSession.HandleRecord(role: .play, stream: "cam")
        handler.deliver(.streamStatus(session: "s1", handle: "h1", stream: "cam", role: .play, status: .stopped,
                                      info: nil, ends: true))
        handler.deliver(.streamStatus(session: "gone", handle: "h9", stream: "cam", role: .play, status: .stopped,
                                      info: nil, ends: true))
        #expect(session.handles.isEmpty)
        #expect(notificationMethods(output) == ["streamStatus"])
    }
}
