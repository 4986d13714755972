import SluiceJSON
@testable import SluiceSignaling
import Testing

@Suite struct HookHandlerTests {
    @Test func aParkedRequestHoldsItsSessionUntilTakenOrDropped() throws {
        let fixture = HandlerFixture()
        let hooks = fixture.hooks
        let (session, _) = fixture.connected("s1")
        let token = hooks.park(session, id: 3, label: "test") { (_: RPCSession) throws(RPCError) in (.null, .none) }
        #expect(session.hooks.isParked)
        #expect(hooks.nextToken == token + 1)
        let request = try #require(hooks.takeParked(token))
        #expect(request.id == 3)
        #expect(!session.hooks.isParked)
        #expect(hooks.takeParked(token) == nil)

        let again = hooks.park(session, id: 4, label: "test") { (_: RPCSession) throws(RPCError) in (.null, .none) }
        hooks.queueBehindParked(.binary, from: session)
        hooks.dropParked(session)
        #expect(hooks.takeParked(again) == nil)
        #expect(session.hooks.backlog.isEmpty)
        #expect(hooks.parked.isEmpty)
    }

    @Test func theBacklogIsBoundedAndTheOverflowIsAnswered() {
        let fixture = HandlerFixture()
        let hooks = fixture.hooks
        let (session, output) = fixture.connected("s1")
        _ = hooks.park(session, id: 1, label: "test") { (_: RPCSession) throws(RPCError) in (.null, .none) }
        for _ in 0..<SessionHookState.backlogLimit { hooks.queueBehindParked(.binary, from: session) }
        #expect(output.messages.isEmpty)
        var text = #"{"jsonrpc":"2.0","id":9,"method":"ping"}"#
        text.withUTF8 { hooks.queueBehindParked(.text(UnsafeRawBufferPointer($0)), from: session) }
        #expect(session.hooks.backlog.count == SessionHookState.backlogLimit)
        #expect(output.last?.objectValue?["id"] == 9)
        #expect(output.last?.objectValue?["error"]?.objectValue?["code"] == 1008)
    }

    @Test func aBodyNumbersTheSessionsHooksAndCarriesItsIdentity() {
        let fixture = HandlerFixture()
        let (session, _) = fixture.connected("s1", user: "ann")
        let first = fixture.hooks.hookBody(.connect, appKey: "demo", sessionID: "s1", session: session,
                                           fields: ["stream": "cam"], custom: nil)
        let second = fixture.hooks.hookBody(.disconnect, appKey: "demo", sessionID: "s1", session: session,
                                            fields: [:], custom: ["a": 1])
        #expect(first["seq"] == 1)
        #expect(second["seq"] == 2)
        #expect(first["identity"] == "ann")
        #expect(first["stream"] == "cam")
        #expect(first["custom"] == .object([:]))
        #expect(second["custom"] == .object(["a": 1]))
        #expect(first["timestamp"] == JSONValue(Int64(1_700_000_000_000)))
    }

    @Test func withoutHooksNoSessionIsASubject() {
        let fixture = HandlerFixture()
        #expect(!fixture.hooks.hasHooks(app: "demo"))
        #expect(!fixture.hooks.hasHooks(app: nil))
        fixture.hooks.sessionEnded("s1")
        #expect(fixture.hooks.subjects.isEmpty)
    }
}
