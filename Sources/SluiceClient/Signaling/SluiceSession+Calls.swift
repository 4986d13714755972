import SluiceJSON

/// 1:1 calls (docs/protocol.md section 6, "Calls"). The session needs a user: a token's `sub`,
/// or `connect(user:)` for an app with `trustClientUser`. Rings and statuses arrive as
/// `.incomingCall` and `.callStatus` notifications; once a call is CONNECTING, publish
/// `streams.publish` and play `streams.play` with `wait: true` as for any stream.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension SluiceSession {
    /// Rings every session of `to`; returns the call's id. How it goes comes as `callStatus`.
    public func call(to user: String, video: Bool = true, audio: Bool = true, custom: JSONValue? = nil) async throws -> String {
        var params: JSONObject = ["to": .string(user), "video": .bool(video), "audio": .bool(audio)]
        if let custom { params["custom"] = custom }
        let result = try await call("call", params: .object(params))
        guard let callId = result["callId"]?.stringValue else {
            throw SignalingError.malformedResponse("call result without callId")
        }
        return callId
    }

    /// Takes the call on this session (the other ringing ones end `otherDeviceAccepted`).
    /// With `sdp`, the callee's stream is published in the same request and `answer` is set.
    public func accept(callId: String, sdp: String? = nil) async throws -> (streams: CallStreams, answer: StreamAnswer?) {
        var params: JSONObject = ["callId": .string(callId)]
        if let sdp { params["sdp"] = .string(sdp) }
        let result = try await call("accept", params: .object(params))
        guard let streams = CallStreams(result) else {
            throw SignalingError.malformedResponse("accept result without publish and play")
        }
        var answer: StreamAnswer?
        if let handle = result["handle"]?.stringValue, let answerSDP = result["sdp"]?.stringValue {
            answer = StreamAnswer(handle: handle, sdp: answerSDP)
        }
        return (streams, answer)
    }

    public func decline(callId: String) async throws {
        _ = try await call("decline", params: ["callId": .string(callId)])
    }

    public func hangup(callId: String) async throws {
        _ = try await call("hangup", params: ["callId": .string(callId)])
    }

    /// Stops media both ways (the server mutes both streams) until this side's `unhold`.
    public func hold(callId: String) async throws {
        _ = try await call("hold", params: ["callId": .string(callId)])
    }

    public func unhold(callId: String) async throws {
        _ = try await call("unhold", params: ["callId": .string(callId)])
    }

    /// The session user's own calls in its app, newest first.
    public func callLog(limit: Int? = nil, cursor: String? = nil, from: Int64? = nil, to: Int64? = nil) async throws -> CallLogPage {
        var params = JSONObject()
        if let limit { params["limit"] = JSONValue(limit) }
        if let cursor { params["cursor"] = .string(cursor) }
        if let from { params["from"] = JSONValue(from) }
        if let to { params["to"] = JSONValue(to) }
        let result = try await call("callLog", params: .object(params))
        guard let calls = result["calls"]?.arrayValue else {
            throw SignalingError.malformedResponse("callLog result without calls")
        }
        return CallLogPage(calls: calls.compactMap(CallLogEntry.init), nextCursor: result["nextCursor"]?.stringValue)
    }

    /// The users of this app with a session open (at most 1000, sorted).
    public func onlineUsers() async throws -> [String] {
        let result = try await call("onlineUsers", params: nil)
        return result["users"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
