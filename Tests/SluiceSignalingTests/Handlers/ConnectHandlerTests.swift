import SluiceJSON
@testable import SluiceSignaling
import Testing

@Suite struct ConnectHandlerTests {
    private func handler(_ fixture: HandlerFixture) -> ConnectHandler {
        var counter = 0
        return ConnectHandler(table: fixture.table, hooks: fixture.hooks,
                              makeSessionID: { counter += 1; return "s\(counter)" })
    }

    @Test func anAppKeyEstablishesTheSessionInTheTable() throws {
        let fixture = HandlerFixture()
        let connects = handler(fixture)
        let (session, _) = fixture.open()
        var followUp = SessionManager.FollowUp.none
        let result = try connects.connect(RPCParams(["appKey": "demo"]), id: 1, session: session, followUp: &followUp)
        guard case .established = followUp else { Issue.record("no ESTABLISHED follow-up"); return }
        #expect(result.objectValue?["sessionId"] == "s1")
        #expect(result.objectValue?["serverVersion"] == "9.9.9")
        #expect(fixture.table.connected["s1"] === session)
        #expect(session.sessionID == "s1")
        #expect(rpcError { _ = try connects.connect(RPCParams(["appKey": "demo"]), id: 2, session: session,
                                                     followUp: &followUp) }?.code == -32600)
    }

    @Test func anUnknownAppKeyClosesTheSocket() {
        let fixture = HandlerFixture()
        let connects = handler(fixture)
        let (session, _) = fixture.open()
        var followUp = SessionManager.FollowUp.none
        let error = rpcError { _ = try connects.connect(RPCParams(["appKey": "nope"]), id: 1, session: session,
                                                         followUp: &followUp) }
        #expect(error?.code == 1001)
        guard case .rejectAppKey = followUp else { Issue.record("no close follow-up"); return }
        #expect(fixture.table.connected.isEmpty)
    }

    @Test func theSessionLimitCountsConnectedSessions() {
        let fixture = HandlerFixture { $0.maxSessions = 1 }
        let connects = handler(fixture)
        _ = fixture.connected("taken")
        let (session, _) = fixture.open()
        var followUp = SessionManager.FollowUp.none
        #expect(rpcError { _ = try connects.connect(RPCParams(["appKey": "demo"]), id: 1, session: session,
                                                     followUp: &followUp) }?.code == 1008)
    }

    @Test func aClientUserNeedsAnAppThatTrustsIt() throws {
        let fixture = HandlerFixture { $0.apps[1].trustClientUser = true }
        let connects = handler(fixture)
        var followUp = SessionManager.FollowUp.none
        let (refused, _) = fixture.open()
        #expect(rpcError { _ = try connects.connect(RPCParams(["appKey": "demo", "user": "ann"]), id: 1,
                                                     session: refused, followUp: &followUp) }?.code == -32602)
        let (trusted, _) = fixture.open()
        let result = try connects.connect(RPCParams(["appKey": "other", "user": "ann"]), id: 1, session: trusted,
                                          followUp: &followUp)
        #expect(result.objectValue?["identity"] == "ann")
    }

    @Test func accessWithoutATokenIsTheAppKeys() throws {
        let fixture = HandlerFixture()
        let connects = handler(fixture)
        #expect(try connects.checkAccess(appKey: "demo", token: nil)
                == SessionAccess(appKey: "demo", identity: nil, grants: .unrestricted))
        #expect(throws: AccessRefusal.unknownAppKey) { try connects.checkAccess(appKey: "nope", token: nil) }
    }
}
