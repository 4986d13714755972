import SluiceJSON
@testable import SluiceSignaling
import Testing

@Suite struct PrecallHandlerTests {
    @Test func aSessionOfNoConfiguredAppGetsTheDefaults() {
        let fixture = HandlerFixture()
        let handler = PrecallHandler(table: fixture.table)
        let (session, _) = fixture.connected("s1", app: "nowhere")
        #expect(handler.policy(of: session) == PrecallPolicy())
    }

    @Test func theTestRecordsAPublishHandleWithNoStream() throws {
        let fixture = HandlerFixture()
        let handler = PrecallHandler(table: fixture.table)
        let (session, _) = fixture.connected("s1")
        let result = try handler.precall(RPCParams(["sdp": "v=0", "seconds": 3]), session: session, sessionID: "s1")
        let handle = try #require(result.objectValue?["handle"]?.stringValue)
        #expect(session.handles[handle] == RPCSession.HandleRecord(role: .publish, stream: ""))
        #expect(fixture.media.precallRequests.map(\.seconds) == [3])
    }

    @Test func theAppsRatePerMinuteCountsOnlyStartedTests() {
        let fixture = HandlerFixture()
        let handler = PrecallHandler(table: fixture.table)
        var policy = PrecallPolicy()
        policy.perMinute = 1
        fixture.media.precallError = .restrictedAccess
        #expect(rpcError { _ = try handler.startPrecall(offer: "v=0", seconds: nil, policy: policy, appKey: "demo", sessionID: "s1") } != nil)
        fixture.media.precallError = nil
        #expect(rpcError { _ = try handler.startPrecall(offer: "v=0", seconds: nil, policy: policy, appKey: "demo", sessionID: "s1") } == nil)
        #expect(rpcError { _ = try handler.startPrecall(offer: "v=0", seconds: nil, policy: policy, appKey: "demo", sessionID: "s1") }?.code == 1008)
        #expect(rpcError { _ = try handler.startPrecall(offer: "v=0", seconds: nil, policy: policy, appKey: "other", sessionID: "s2") } == nil)
        fixture.clock.advance(seconds: 61)
        #expect(rpcError { _ = try handler.startPrecall(offer: "v=0", seconds: nil, policy: policy, appKey: "demo", sessionID: "s1") } == nil)
    }

    @Test func secondsAreAWholeNumberFromOneToTen() throws {
        #expect(try PrecallHandler.precallSeconds(nil) == nil)
        #expect(try PrecallHandler.precallSeconds(.null) == nil)
        #expect(try PrecallHandler.precallSeconds(10) == 10)
        #expect(rpcError { _ = try PrecallHandler.precallSeconds(0) }?.code == -32602)
        #expect(rpcError { _ = try PrecallHandler.precallSeconds(1.5) }?.code == -32602)
    }
}
