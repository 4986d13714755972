import SluiceCalls
import SluiceJSON
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

@Suite struct CallHandlerTests {
    private func handler(_ fixture: HandlerFixture) -> CallHandler {
        let streams = StreamHandler(table: fixture.table, hooks: fixture.hooks)
        let calls = CallHandler(table: fixture.table, hooks: fixture.hooks, streams: streams)
        streams.calls = calls
        return calls
    }

    private func method(_ calls: CallHandler, _ name: String, _ params: JSONObject, _ session: RPCSession,
                        _ id: SessionID) throws(RPCError) -> JSONValue {
        var followUp = SessionManager.FollowUp.none
        return try calls.callMethod(name, RPCParams(params), id: 1, session: session, sessionID: id, followUp: &followUp)
    }

    @Test func aCallRingsTheCalleeAfterTheReply() throws {
        let fixture = HandlerFixture()
        let calls = handler(fixture)
        let (ann, _) = fixture.connected("s1", user: "ann")
        let (bob, bobOutput) = fixture.connected("s2", user: "bob")
        calls.sessionEstablished(ann)
        calls.sessionEstablished(bob)
        let result = try method(calls, "call", ["to": "bob"], ann, "s1")
        let callID = try #require(result.objectValue?["callId"]?.stringValue)
        #expect(calls.afterReply.count == 1)
        #expect(notificationMethods(bobOutput).isEmpty)
        calls.carryOutAfterReply()
        #expect(calls.afterReply.isEmpty)
        #expect(notificationMethods(bobOutput) == ["incomingCall"])
        let users = try method(calls, "onlineUsers", [:], ann, "s1")
        #expect(users.objectValue?["users"] == JSONValue.array(["ann", "bob"]))
        #expect(calls.callBook.call(callID) != nil)
    }

    @Test func callsNeedAUserAndAnAppThatAllowsThem() {
        let fixture = HandlerFixture { $0.apps[1].calls.enabled = false }
        let calls = handler(fixture)
        let (anonymous, _) = fixture.connected("s1")
        let (off, _) = fixture.connected("s2", app: "other", user: "ann")
        #expect(rpcError { _ = try method(calls, "onlineUsers", [:], anonymous, "s1") } == .identityRequired)
        #expect(rpcError { _ = try method(calls, "onlineUsers", [:], off, "s2") } == .restrictedAccess)
        #expect(rpcError { _ = try method(calls, "callLog", [:], off, "s2") } == .restrictedAccess)
    }

    @Test func aCallsStreamNamesAreItsPartiesAlone() throws {
        let fixture = HandlerFixture()
        let calls = handler(fixture)
        #expect(try calls.checkCallStream("cam", publish: true, sessionID: "s1") == false)
        let reserved = CallStreamName.make(callID: "c-unknown", side: .caller)
        #expect(rpcError { _ = try calls.checkCallStream(reserved, publish: true, sessionID: "s1") }?.code == 1012)
    }

    @Test func anEndedCallStopsItsStreamsWhoeverHasThem() {
        let fixture = HandlerFixture()
        let calls = handler(fixture)
        let (player, _) = fixture.connected("s1")
        let name = CallStreamName.make(callID: "c1", side: .callee)
        player.handles["h1"] = RPCSession.HandleRecord(role: .play, stream: name)
        player.handles["h2"] = RPCSession.HandleRecord(role: .play, stream: "cam")
        calls.stopCallStreams("c1")
        #expect(player.handles.keys.sorted() == ["h2"])
    }
}
