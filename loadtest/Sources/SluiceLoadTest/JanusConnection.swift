import Foundation
import SluiceClient

/// A Janus API error: the core's `error` ({code, reason}) or a plugin's `error_code`/`error`.
struct JanusError: Error, CustomStringConvertible, Equatable {
    let code: Int
    let reason: String
    var description: String { "Janus error \(code): \(reason)" }
}

/// What a plugin request got back: the plugin's `data`, and the JSEP it carried, if any.
struct JanusReply: Sendable {
    var data: JSONValue
    var jsep: JSONValue?
}

/// Events Janus sends about a handle without being asked (`webrtcup`, `media`, `hangup`,
/// `detached`, `trickle`, and plugin events without a transaction).
struct JanusHandleEvent: Sendable {
    var kind: String
    var message: JSONValue
}

/// One WebSocket to Janus (subprotocol `janus-protocol`) carrying one Janus session: create,
/// attach, plugin messages matched to their replies by transaction, trickle, and a keepalive
/// every 25 s so that the session outlives Janus's `session_timeout`.
final class JanusConnection: @unchecked Sendable {
    let url: URL
    let requestTimeout: Double
    private let channel: POSIXWebSocketChannel
    private let lock = NSLock()
    private var pending: [String: (expectsAck: Bool, continuation: CheckedContinuation<JSONValue, Error>)] = [:]
    private var nextTransaction = 1
    private var closedError: Error?
    private var handlers: [UInt64: @Sendable (JanusHandleEvent) -> Void] = [:]
    private var keepalive: Task<Void, Never>?
    private(set) var sessionID: UInt64?

    init(url: URL, requestTimeout: Double) {
        self.url = url
        self.requestTimeout = requestTimeout
        channel = POSIXWebSocketChannel(url: url, handshakeTimeoutSeconds: max(1, Int(requestTimeout)),
                                        protocols: ["janus-protocol"])
    }

    func open() async throws {
        try await channel.open { [weak self] event in self?.handle(event) }
    }

    /// `create`: a new Janus session, kept alive until `close`.
    func createSession() async throws -> UInt64 {
        let reply = try await send(["janus": "create"], expectsAck: false)
        guard let id = Self.id(reply["data"]?["id"]) else { throw JanusError(code: -1, reason: "create without data.id") }
        sessionID = id
        keepalive = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 25_000_000_000)
                guard let self, !Task.isCancelled else { return }
                _ = try? await self.send(["janus": "keepalive"], expectsAck: true)
            }
        }
        return id
    }

    /// `attach` to `plugin`; `onEvent` gets the handle's unsolicited events (reader thread).
    func attach(plugin: String, onEvent: @escaping @Sendable (JanusHandleEvent) -> Void) async throws -> UInt64 {
        let reply = try await send(["janus": "attach", "plugin": .string(plugin)], expectsAck: false)
        guard let id = Self.id(reply["data"]?["id"]) else { throw JanusError(code: -1, reason: "attach without data.id") }
        lock.withLock { handlers[id] = onEvent }
        return id
    }

    /// A plugin `message`: synchronous requests come back as `success`, asynchronous ones as
    /// `ack` and then an `event`; both carry `plugindata.data`, checked for `error_code`.
    func request(handle: UInt64, body: JSONValue, jsep: JSONValue? = nil) async throws -> JanusReply {
        var message: JSONObject = ["janus": "message", "handle_id": .int(Int64(bitPattern: handle)), "body": body]
        if let jsep { message["jsep"] = jsep }
        let reply = try await send(message, expectsAck: false)
        guard let data = reply["plugindata"]?["data"] else {
            throw JanusError(code: -1, reason: "reply without plugindata: \(reply.serialized())")
        }
        if let code = data["error_code"]?.intValue.flatMap({ Int(exactly: $0) }) {
            throw JanusError(code: code, reason: data["error"]?.stringValue ?? "")
        }
        return JanusReply(data: data, jsep: reply["jsep"])
    }

    /// Tells Janus that every candidate of this side is in its SDP already.
    func trickleCompleted(handle: UInt64) async throws {
        _ = try await send(["janus": "trickle", "handle_id": .int(Int64(bitPattern: handle)),
                            "candidate": ["completed": true]], expectsAck: true)
    }

    /// `destroy` the session (best effort) and close the socket.
    func close() async {
        keepalive?.cancel()
        if sessionID != nil { _ = try? await send(["janus": "destroy"], expectsAck: false) }
        channel.close(code: 1000, reason: "")
    }

    // MARK: Transactions

    private func send(_ fields: JSONObject, expectsAck: Bool) async throws -> JSONValue {
        var message = fields
        let transaction: String = try lock.withLock {
            if let closedError { throw closedError }
            defer { nextTransaction += 1 }
            return "lt\(nextTransaction)"
        }
        message["transaction"] = .string(transaction)
        if let sessionID, message["janus"] != "create" { message["session_id"] = .int(Int64(bitPattern: sessionID)) }
        let text = JSONValue.object(message).serialized()
        DispatchQueue.global().asyncAfter(deadline: .now() + requestTimeout) { [weak self] in
            self?.complete(transaction, with: .failure(JanusError(code: -1, reason: "no reply to \(fields["janus"]?.stringValue ?? "") "
                                                                 + "within \(Int(self?.requestTimeout ?? 0)) s")))
        }
        return try await withCheckedThrowingContinuation { continuation in
            // Registered before sending, so that no reply can come first.
            lock.withLock { pending[transaction] = (expectsAck, continuation) }
            Task {
                do {
                    try await channel.send(text: text)
                } catch {
                    complete(transaction, with: .failure(error))
                }
            }
        }
    }

    private func complete(_ transaction: String, with result: Result<JSONValue, Error>) {
        let waiting = lock.withLock { pending.removeValue(forKey: transaction) }
        waiting?.continuation.resume(with: result)
    }

    private func handle(_ event: SignalingChannelEvent) {
        switch event {
        case .text(let text):
            guard let message = try? JSONValue(parsing: text), let kind = message["janus"]?.stringValue else { return }
            receive(message, kind: kind)
        case .closed(let code, let reason):
            let error = JanusError(code: Int(code ?? 0), reason: "WebSocket closed: \(reason)")
            let (waiting, all) = lock.withLock { () -> ([CheckedContinuation<JSONValue, Error>], [@Sendable (JanusHandleEvent) -> Void]) in
                closedError = error
                let taken = pending.values.map(\.continuation)
                pending = [:]
                return (taken, Array(handlers.values))
            }
            for continuation in waiting { continuation.resume(throwing: error) }
            for handler in all { handler(JanusHandleEvent(kind: "closed", message: .string(reason))) }
        }
    }

    private func receive(_ message: JSONValue, kind: String) {
        let transaction = message["transaction"]?.stringValue
        if let transaction {
            let entry: (expectsAck: Bool, continuation: CheckedContinuation<JSONValue, Error>)? = lock.withLock {
                guard let entry = pending[transaction] else { return nil }  // its waiter gave up
                if kind == "ack" && !entry.expectsAck { return nil }  // the event follows
                pending[transaction] = nil
                return entry
            }
            if let entry {
                if kind == "error" {
                    entry.continuation.resume(throwing: JanusError(code: message["error"]?["code"]?.intValue.flatMap({ Int(exactly: $0) }) ?? -1,
                                                                   reason: message["error"]?["reason"]?.stringValue ?? ""))
                } else {
                    entry.continuation.resume(returning: message)
                }
                return
            }
            if kind == "ack" || kind == "success" || kind == "error" { return }
        }
        guard let sender = Self.id(message["sender"]) else { return }
        let handler = lock.withLock { handlers[sender] }
        handler?(JanusHandleEvent(kind: kind, message: message))
    }

    static func id(_ value: JSONValue?) -> UInt64? {
        switch value {
        case .int(let v)?: return UInt64(bitPattern: v)
        case .double(let v)? where v >= 0 && v < 1.8e19 && v == v.rounded(): return UInt64(v)
        default: return nil
        }
    }
}
