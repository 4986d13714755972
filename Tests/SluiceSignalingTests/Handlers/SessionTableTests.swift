import SluiceJSON
@testable import SluiceSignaling
import Testing

@Suite struct SessionTableTests {
    @Test func openSessionsGetRisingConnectionIDsAndStayOpenUntilRemoved() {
        let fixture = HandlerFixture()
        let (first, _) = fixture.open()
        let (second, _) = fixture.open()
        #expect(second.connectionID == first.connectionID + 1)
        #expect(fixture.table.isOpen(first))
        fixture.table.sessions[first.connectionID] = nil
        #expect(!fixture.table.isOpen(first))
        #expect(fixture.table.isOpen(second))
    }

    @Test func connectedSessionsAreOldestConnectionFirst() {
        let fixture = HandlerFixture()
        let (older, _) = fixture.connected("zz")
        let (newer, _) = fixture.connected("aa")
        #expect(fixture.table.connectedSessions.map(\.connectionID) == [older.connectionID, newer.connectionID])
        #expect(fixture.table.app(of: older)?.key == "demo")
    }

    @Test func theHandleLimitIsPerSession() {
        let fixture = HandlerFixture { $0.maxHandlesPerSession = 1 }
        let (session, _) = fixture.connected("s1")
        #expect(rpcError { try fixture.table.requireHandleCapacity(session) } == nil)
        session.handles["h1"] = RPCSession.HandleRecord(role: .play, stream: "cam")
        #expect(rpcError { try fixture.table.requireHandleCapacity(session) }?.code == 1008)
    }

    @Test func aRejectIsAnErrorReplyWithTheGivenID() {
        let fixture = HandlerFixture()
        let (session, output) = fixture.open()
        fixture.table.reject(session, id: 7, .invalidRequest("no"))
        #expect(output.last?.objectValue?["id"] == 7)
        #expect(output.last?.objectValue?["error"]?.objectValue?["code"] == -32600)
    }

    @Test func withoutAPipelineItsStepsDoNothing() {
        let fixture = HandlerFixture()
        fixture.table.drainMediaEvents()
        var ran = false
        fixture.table.resumeParked(1) { (_: ParkedRequest) throws(RPCError) in ran = true; return (.null, .none) }
        #expect(!ran)
    }
}
