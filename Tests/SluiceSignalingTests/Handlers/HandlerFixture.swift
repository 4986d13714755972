import SluiceControl
import SluiceJSON
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import SluiceLog

/// A session table with a fake engine and no socket, for testing one handler alone: sessions
/// are opened on recording outputs and connected by hand, as `connect` would.
final class HandlerFixture {
    let media = FakeMediaControl()
    let clock = TestClock()
    let table: SessionTable
    private(set) lazy var hooks = HookHandler(table: table, dispatcher: HookDispatcher(
        apps: table.config.apps, transport: hookTransport, log: table.log))
    let hookTransport: HookTransport

    init(hookTransport: HookTransport = UnusedHookTransport(), configure: (inout SignalingConfig) -> Void = { _ in }) {
        var config = SignalingConfig(apps: [.init(key: "demo"), .init(key: "other")], serverVersion: "9.9.9")
        configure(&config)
        let clock = self.clock
        table = SessionTable(config: config, media: media, log: Log(level: .error), clock: { clock.micros },
                             wallClockMillis: { 1_700_000_000_000 })
        self.hookTransport = hookTransport
    }

    /// An open session, not connected.
    func open() -> (RPCSession, RecordingOutput) {
        let output = RecordingOutput()
        return (table.open(output: output), output)
    }

    /// A session connected as `id` to `appKey`, as `connect` leaves it.
    func connected(_ id: SessionID, app appKey: String = "demo", user: String? = nil,
                   grants: AccessGrants = .unrestricted) -> (RPCSession, RecordingOutput) {
        let (session, output) = open()
        session.state = .connected(id)
        session.appKey = appKey
        session.identity = user
        session.grants = grants
        table.connected[id] = session
        return (session, output)
    }
}

/// The error a handler threw, or nil (its closure throws untyped: the test closures' type
/// is inferred so).
func rpcError(_ body: () throws -> Void) -> RPCError? {
    do {
        try body()
        return nil
    } catch {
        return error as? RPCError
    }
}

/// The method of each notification the output got, in order.
func notificationMethods(_ output: RecordingOutput) -> [String] {
    output.messages.compactMap { $0.objectValue?["method"]?.stringValue }
}
