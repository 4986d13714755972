import Foundation
import SluiceVocabulary

/// The result of `connect`.
public struct ConnectResult: Sendable, Hashable {
    public var sessionId: String
    public var serverVersion: String
    public var iceServers: [JSONValue]
    /// The access token's `sub`, when the session connected with a token that has one.
    public var identity: String?

    public init(sessionId: String, serverVersion: String, iceServers: [JSONValue], identity: String? = nil) {
        self.sessionId = sessionId
        self.serverVersion = serverVersion
        self.iceServers = iceServers
        self.identity = identity
    }
}

/// The result of `publish` and `play`: the handle and the server's SDP answer.
public struct StreamAnswer: Sendable, Hashable {
    public var handle: String
    public var sdp: String

    public init(handle: String, sdp: String) {
        self.handle = handle
        self.sdp = sdp
    }
}

/// A request between sending and its response reaching the caller.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
private enum PendingRequest {
    case sent(method: String)
    case waiting(method: String, continuation: CheckedContinuation<JSONValue, Error>)
    case answered(Result<JSONValue, Error>)
}

/// The kind of a track (`mute`'s `kind`, what a received packet carries): the server's own
/// word, `MediaKind` of SluiceVocabulary, under the SDK's name.
public typealias TrackKind = MediaKind

/// One signaling session with a Sluice server: JSON-RPC 2.0 over a WebSocket (docs/protocol.md
/// section 1). Requests are async and throw `SluiceRPCError` for an error response and
/// `SignalingError` when the connection fails. Notifications arrive on `notifications`, in the
/// order the server sent them; after the connection ends the stream yields `.closed` and finishes.
///
/// Platform-neutral: Foundation only. The WebSocket comes from a `SignalingChannel`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
// @unchecked: the four `var`s are read and written under `lock` only (NSLock: Mutex needs macOS 15); the rest is Sendable `let`s.
public final class SluiceSession: @unchecked Sendable {
    public let url: URL
    /// Notifications from the server. Iterate it from one task.
    public let notifications: AsyncStream<SluiceNotification>
    /// How long a request waits for its response before it fails with `.timedOut`.
    public let requestTimeout: TimeInterval

    private let channel: SignalingChannel
    private let notificationSink: AsyncStream<SluiceNotification>.Continuation
    private let lock = NSLock()
    private var nextID = 1
    private var pending: [Int: PendingRequest] = [:]
    private var isOpen = false
    private var closedError: SignalingError?

    /// `channel` defaults to the platform's (see `SignalingChannels.makeDefault`).
    public init(url: URL, channel: SignalingChannel? = nil, requestTimeout: TimeInterval = 10) {
        self.url = url
        self.channel = channel ?? SignalingChannels.makeDefault(url: url)
        self.requestTimeout = requestTimeout
        (notifications, notificationSink) = AsyncStream.makeStream(of: SluiceNotification.self)
    }

    /// A session on `ws://host:port/ws`; nil when that makes no URL.
    public convenience init?(host: String, port: Int, requestTimeout: TimeInterval = 10) {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        guard let url = URL(string: "ws://\(hostPart):\(port)/ws") else { return nil }
        self.init(url: url, requestTimeout: requestTimeout)
    }

    deinit {
        channel.close(code: 1000, reason: "")
    }

    /// Opens the WebSocket. `connect` is the first request to make afterwards.
    public func open() async throws {
        try await channel.open { [weak self] event in self?.handle(event) }
        lock.critical {
            if closedError == nil { isOpen = true }
        }
    }

    /// Closes the WebSocket without `disconnect` (the server then ends the session as dropped).
    public func close() {
        channel.close(code: 1000, reason: "")
    }

    // MARK: Methods (docs/protocol.md "Methods")

    /// `appKey` may be nil when `token` is given: the token names its app. `user` names the
    /// session's user for calls, in an app with `trustClientUser` (else the token's `sub` does).
    public func connect(appKey: String?, token: String? = nil, user: String? = nil, custom: JSONValue? = nil,
                        clientVersion: String? = nil) async throws -> ConnectResult {
        var params = JSONObject()
        if let appKey { params["appKey"] = .string(appKey) }
        if let token { params["token"] = .string(token) }
        if let user { params["user"] = .string(user) }
        if let custom { params["custom"] = custom }
        if let clientVersion { params["clientVersion"] = .string(clientVersion) }
        let result = try await call("connect", params: .object(params))
        guard let sessionId = result["sessionId"]?.stringValue else {
            throw SignalingError.malformedResponse("connect result without sessionId")
        }
        return ConnectResult(sessionId: sessionId, serverVersion: result["serverVersion"]?.stringValue ?? "",
                             iceServers: result["iceServers"]?.arrayValue ?? [],
                             identity: result["identity"]?.stringValue)
    }

    public func publish(stream: String, sdp: String, constraints: StreamConstraints? = nil,
                        record: Bool? = nil, e2ee: Bool? = nil, custom: JSONValue? = nil) async throws -> StreamAnswer {
        var params: JSONObject = ["stream": .string(stream), "sdp": .string(sdp)]
        if let constraints { params["constraints"] = constraints.json }
        if let record { params["record"] = .bool(record) }
        if let e2ee { params["e2ee"] = .bool(e2ee) }
        if let custom { params["custom"] = custom }
        return try Self.answer(try await call("publish", params: .object(params)), method: "publish")
    }

    public func play(stream: String, sdp: String, constraints: StreamConstraints? = nil,
                     wait: Bool? = nil, custom: JSONValue? = nil) async throws -> StreamAnswer {
        var params: JSONObject = ["stream": .string(stream), "sdp": .string(sdp)]
        if let constraints { params["constraints"] = constraints.json }
        if let wait { params["wait"] = .bool(wait) }
        if let custom { params["custom"] = custom }
        return try Self.answer(try await call("play", params: .object(params)), method: "play")
    }

    public func update(handle: String, constraints: StreamConstraints) async throws {
        _ = try await call("update", params: ["handle": .string(handle), "constraints": constraints.json])
    }

    public func mute(handle: String, kind: TrackKind) async throws {
        _ = try await call("mute", params: ["handle": .string(handle), "kind": .string(kind.rawValue)])
    }

    public func unmute(handle: String, kind: TrackKind) async throws {
        _ = try await call("unmute", params: ["handle": .string(handle), "kind": .string(kind.rawValue)])
    }

    public func stop(handle: String) async throws {
        _ = try await call("stop", params: ["handle": .string(handle)])
    }

    /// The stats object of docs/protocol.md section 3.
    public func getStats(handle: String) async throws -> JSONValue {
        try await call("getStats", params: ["handle": .string(handle)])
    }

    public func ping() async throws {
        _ = try await call("ping", params: nil)
    }

    /// Ends the session; the server answers and then closes the WebSocket with 1000.
    public func disconnect() async throws {
        _ = try await call("disconnect", params: nil)
    }

    private static func answer(_ result: JSONValue, method: String) throws -> StreamAnswer {
        guard let handle = result["handle"]?.stringValue, let sdp = result["sdp"]?.stringValue else {
            throw SignalingError.malformedResponse("\(method) result without handle or sdp")
        }
        return StreamAnswer(handle: handle, sdp: sdp)
    }

    // MARK: JSON-RPC

    /// Sends a request and waits for its `result` (or throws its `error`).
    public func call(_ method: String, params: JSONValue?) async throws -> JSONValue {
        let id = try register(method)
        // Members in docs/protocol.md's order: jsonrpc, id, method, params.
        var envelope: JSONObject = ["jsonrpc": "2.0", "id": .int(Int64(id)), "method": .string(method)]
        if let params { envelope["params"] = params }

        do {
            try await channel.send(text: JSONValue.object(envelope).serialized())
        } catch {
            lock.critical { pending[id] = nil }
            throw error
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + requestTimeout) { [weak self] in
            self?.complete(id: id, with: .failure(SignalingError.timedOut(method: method)))
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, Error>) in
                wait(id: id, method: method, continuation: continuation)
            }
        } onCancel: {
            complete(id: id, with: .failure(CancellationError()))
        }
    }

    /// A new request id, registered before sending: the response may arrive before the
    /// calling task awaits it.
    private func register(_ method: String) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let closedError { throw closedError }
        guard isOpen else { throw SignalingError.notOpen }
        let id = nextID
        nextID += 1
        pending[id] = .sent(method: method)
        return id
    }

    private func wait(id: Int, method: String, continuation: CheckedContinuation<JSONValue, Error>) {
        lock.lock()
        switch pending[id] {
        case .sent(let method):
            pending[id] = .waiting(method: method, continuation: continuation)
            lock.unlock()
        case .answered(let result):
            pending[id] = nil
            lock.unlock()
            continuation.resume(with: result)
        case .waiting, nil:
            lock.unlock()
            continuation.resume(throwing: SignalingError.timedOut(method: method))
        }
    }

    private func complete(id: Int, with result: Result<JSONValue, Error>) {
        lock.lock()
        switch pending[id] {
        case .waiting(_, let continuation):
            pending[id] = nil
            lock.unlock()
            continuation.resume(with: result)
        case .sent:
            pending[id] = .answered(result)
            lock.unlock()
        case .answered, nil:
            lock.unlock()
        }
    }

    /// Channel events, in order, on the channel's thread.
    private func handle(_ event: SignalingChannelEvent) {
        switch event {
        case .text(let text):
            receive(text)
        case .closed(let code, let reason):
            let error = SignalingError.closed(code: code, reason: reason)
            lock.lock()
            closedError = error
            isOpen = false
            let ids = Array(pending.keys)
            lock.unlock()
            for id in ids { complete(id: id, with: .failure(error)) }
            notificationSink.yield(.closed(code: code, reason: reason))
            notificationSink.finish()
        }
    }

    private func receive(_ text: String) {
        guard let message = try? JSONValue(parsing: text), message.objectValue != nil else { return }
        if let method = message["method"]?.stringValue, message["id"] == nil {
            notificationSink.yield(SluiceNotification(method: method, params: message["params"]))
            return
        }
        // A reply with id null answers a frame the server could not read; the request it
        // belonged to is unknown, so it can only time out.
        guard let id = message["id"]?.intValue.flatMap({ Int(exactly: $0) }) else { return }
        if let error = message["error"] {
            complete(id: id, with: .failure(SluiceRPCError(errorMember: error)
                ?? SignalingError.malformedResponse("error member: \(text)")))
        } else if let result = message["result"] {
            complete(id: id, with: .success(result))
        } else {
            complete(id: id, with: .failure(SignalingError.malformedResponse(text)))
        }
    }
}
