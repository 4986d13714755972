import Foundation
import SluiceClient
import Synchronization
import Testing

/// A channel scripted by the test: it records what the session sends and lets the test
/// play the server's side.
final class ScriptedChannel: SignalingChannel, @unchecked Sendable {
    private let state = Mutex<(handler: (@Sendable (SignalingChannelEvent) -> Void)?, sent: [String])>((nil, []))
    /// Called with each sent text, on the sending task, before `send` returns.
    let onSend: @Sendable (ScriptedChannel, JSONValue) -> Void

    init(onSend: @escaping @Sendable (ScriptedChannel, JSONValue) -> Void = { _, _ in }) {
        self.onSend = onSend
    }

    func open(handler: @escaping @Sendable (SignalingChannelEvent) -> Void) async throws {
        state.withLock { $0.handler = handler }
    }

    func send(text: String) async throws {
        state.withLock { $0.sent.append(text) }
        if let message = try? JSONValue(parsing: text) { onSend(self, message) }
    }

    func close(code: UInt16, reason: String) {
        emit(.closed(code: code, reason: reason))
    }

    func emit(_ event: SignalingChannelEvent) {
        state.withLock { $0.handler }?(event)
    }

    func reply(_ json: String) { emit(.text(json)) }

    var sent: [JSONValue] { state.withLock { $0.sent }.compactMap { try? JSONValue(parsing: $0) } }
}

struct SluiceSessionProtocolTests {
    let url = URL(string: "ws://127.0.0.1:9/ws")!

    @Test func replyArrivingBeforeSendReturnsIsNotLost() async throws {
        // The "server" answers inside send, before the session starts waiting.
        let channel = ScriptedChannel { channel, message in
            guard let id = message["id"]?.intValue else { return }
            channel.reply(#"{"jsonrpc":"2.0","id":\#(id),"result":{"sessionId":"s1","serverVersion":"9","iceServers":[]}}"#)
            channel.reply(#"{"jsonrpc":"2.0","method":"session","params":{"status":"ESTABLISHED"}}"#)
        }
        let session = SluiceSession(url: url, channel: channel)
        try await session.open()
        let result = try await session.connect(appKey: "k", token: "t", custom: ["a": 1])
        #expect(result == ConnectResult(sessionId: "s1", serverVersion: "9", iceServers: []))
        let request = try #require(channel.sent.first)
        #expect(request["jsonrpc"] == "2.0" && request["method"] == "connect")
        #expect(request["params"] == ["appKey": "k", "token": "t", "custom": ["a": 1]])
        var iterator = session.notifications.makeAsyncIterator()
        #expect(await iterator.next() == .session(SessionStatusUpdate(status: .established)))
    }

    @Test func noReplyTimesOutAndLateReplyIsIgnored() async throws {
        // The first request gets no answer; the second is answered inside `send`, so the short
        // timeout cannot race the test on a loaded machine.
        let channel = ScriptedChannel { channel, message in
            guard message["id"]?.intValue == 2 else { return }
            channel.reply(#"{"jsonrpc":"2.0","id":2,"result":{"ok":true}}"#)
        }
        let session = SluiceSession(url: url, channel: channel, requestTimeout: 0.2)
        try await session.open()
        await #expect(throws: SignalingError.timedOut(method: "ping")) { try await session.ping() }
        channel.reply(#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        // The session still works afterwards, and the late reply was not taken for request 2.
        #expect(try await session.call("ping", params: nil) == ["ok": true])
    }

    @Test func repliesOutOfOrderReachTheirRequests() async throws {
        let channel = ScriptedChannel()
        let session = SluiceSession(url: url, channel: channel)
        try await session.open()
        let first = Task { try await session.getStats(handle: "a") }
        #expect(await eventually { channel.sent.count == 1 })
        let second = Task { try await session.getStats(handle: "b") }
        #expect(await eventually { channel.sent.count == 2 })
        let ids = channel.sent.map { ($0["params"]?["handle"]?.stringValue ?? "", $0["id"]?.intValue ?? 0) }
        let idOf = Dictionary(uniqueKeysWithValues: ids)
        channel.reply(#"{"jsonrpc":"2.0","id":\#(idOf["b"]!),"error":{"code":1007,"message":"Unknown handle","data":{"reason":"UNKNOWN_HANDLE"}}}"#)
        channel.reply(#"{"jsonrpc":"2.0","id":\#(idOf["a"]!),"result":{"handle":"a"}}"#)
        #expect(try await first.value == ["handle": "a"])
        await #expect(throws: SluiceRPCError(code: 1007, message: "Unknown handle", reason: "UNKNOWN_HANDLE",
                                             data: ["reason": "UNKNOWN_HANDLE"])) { try await second.value }
    }

    @Test func closeFailsWaitingRequestsAndEndsNotifications() async throws {
        let channel = ScriptedChannel()
        let session = SluiceSession(url: url, channel: channel)
        try await session.open()
        let waiting = Task { try await session.ping() }
        #expect(await eventually { channel.sent.count == 1 })
        channel.reply(#"{"jsonrpc":"2.0","method":"streamStatus","params":{"handle":"h","stream":"s","role":"publish","status":"FAILED","info":"x"}}"#)
        channel.emit(.closed(code: 1001, reason: "going away"))
        await #expect(throws: SignalingError.closed(code: 1001, reason: "going away")) { try await waiting.value }
        var received: [SluiceNotification] = []
        for await notification in session.notifications { received.append(notification) }
        #expect(received == [
            .streamStatus(StreamStatusUpdate(handle: "h", stream: "s", role: .publish, status: .failed, info: "x")),
            .closed(code: 1001, reason: "going away"),
        ])
        await #expect(throws: SignalingError.self) { try await session.ping() }
    }

    @Test func garbageFromTheServerIsIgnored() async throws {
        let channel = ScriptedChannel()
        let session = SluiceSession(url: url, channel: channel, requestTimeout: 5)
        try await session.open()
        let waiting = Task { try await session.call("ping", params: nil) }
        #expect(await eventually { channel.sent.count == 1 })
        for junk in ["not json", "[1,2]", #"{"id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
                     #"{"jsonrpc":"2.0","id":99,"result":{}}"#] {
            channel.reply(junk)
        }
        channel.reply(#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        #expect(try await waiting.value == JSONValue.object([:]))
    }
}
