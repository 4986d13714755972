import SluiceCalls
import SluiceJSON
import SluiceJSONParser
import SluiceVocabulary

/// The JSON of `POST /api/v1/cluster/calls` (docs/protocol.md section 6, **Cluster**): a batch
/// `{"from": nodeId, "messages": [...]}` and its answer `{"messages": [...]}` or
/// `{"error": {"code", "message", "reason"}}`. Both directions read another node's bytes, so
/// decoding is strict: each member is checked for type, characters, length and range, and the
/// first bad one is named by its path. Unknown members are ignored (a newer node may add some).
public enum ClusterCallJSON {
    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        public var field: String
        public var problem: String
        public var description: String { field.isEmpty ? problem : "'\(field)' \(problem)" }
    }

    /// Messages in one batch: more than a call's sessions ever need at once.
    public static let maxMessages = 64
    /// A call's `custom`, as compact JSON text (its `call` param is limited far below this).
    static let maxCustomBytes = 16_384

    // MARK: Encoding

    public static func batch(from node: String, _ messages: [ClusterCallMessage]) -> JSONValue {
        ["from": .string(node), "messages": .array(messages.map(json))]
    }

    public static func reply(_ reply: ClusterCallReply) -> JSONValue {
        if let error = reply.error {
            var object: JSONObject = ["code": JSONValue(error.code), "message": .string(error.message)]
            if let reason = error.reason { object["reason"] = .string(reason) }
            return ["error": .object(object)]
        }
        return ["messages": .array(reply.messages.map(json))]
    }

    static func json(_ message: ClusterCallMessage) -> JSONValue {
        switch message {
        case let .notify(session, side, summary, event):
            var object: JSONObject = ["type": "notify", "session": .string(session), "side": .string(side.rawValue),
                                      "call": json(summary)]
            switch event {
            case .incomingCall:
                object["event"] = "incomingCall"
            case let .callStatus(status, by, endResult, media):
                object["event"] = "callStatus"
                object["status"] = .string(status.rawValue)
                if let by { object["by"] = .string(by) }
                if let endResult { object["endResult"] = .string(endResult.rawValue) }
                if let media { object["media"] = .string(media.rawValue) }
            }
            return .object(object)
        case let .hold(callID, held):
            return ["type": "hold", "callId": .string(callID), "held": .bool(held)]
        case let .endMedia(callID):
            return ["type": "endMedia", "callId": .string(callID)]
        case let .method(name, callID, session, user, appKey):
            return ["type": "method", "method": .string(name), "callId": .string(callID), "session": .string(session),
                    "user": .string(user), "app": .string(appKey)]
        case let .media(callID, side, playing):
            return ["type": "media", "callId": .string(callID), "side": .string(side.rawValue),
                    "status": .string(playing ? "playing" : "failed")]
        }
    }

    static func json(_ summary: CallSummary) -> JSONValue {
        var object: JSONObject = [
            "id": .string(summary.id), "home": .string(summary.home), "app": .string(summary.appKey),
            "caller": .string(summary.caller), "callee": .string(summary.callee), "video": .bool(summary.video),
            "audio": .bool(summary.audio), "custom": .string(summary.customJSON), "startedAt": .int(summary.startedAt),
            "nodes": .array(summary.nodes.map { .string($0) }),
        ]
        if let answeredAt = summary.answeredAt { object["answeredAt"] = .int(answeredAt) }
        return .object(object)
    }

    // MARK: Decoding

    /// A batch: the sending node and its messages.
    public static func batch(from bytes: [UInt8]) throws(DecodingError) -> (node: String, messages: [ClusterCallMessage]) {
        let body = try StrictReader(parsing: bytes)
        let node = try body.nodeID("from")
        let items = try body.array("messages", count: 1...maxMessages)
        var messages: [ClusterCallMessage] = []
        for item in items { messages.append(try message(item.asObject())) }
        return (node, messages)
    }

    public static func reply(from bytes: [UInt8]) throws(DecodingError) -> ClusterCallReply {
        let body = try StrictReader(parsing: bytes)
        if body.has("error") {
            let error = try body.object("error")
            let code = try error.integer("code", range: -32768...65535)
            let text = try error.text("message", bytes: 1...1024)
            let reason = try error.optionalToken("reason")
            return ClusterCallReply(error: RPCError(code: Int(code), message: text, reason: reason))
        }
        let items = try body.array("messages", count: 0...maxMessages)
        var messages: [ClusterCallMessage] = []
        for item in items { messages.append(try message(item.asObject())) }
        return ClusterCallReply(messages: messages)
    }

    static func message(_ object: StrictReader) throws(DecodingError) -> ClusterCallMessage {
        switch try object.oneOf("type", ["notify", "hold", "endMedia", "method", "media"]) {
        case "notify":
            let session = try object.sessionID("session")
            let side = try object.side("side")
            let summary = try summary(object.object("call"))
            let event: ClusterCallMessage.NotifyEvent
            if try object.oneOf("event", ["incomingCall", "callStatus"]) == "incomingCall" {
                event = .incomingCall
            } else {
                let status = try object.raw("status", CallStatus.self)
                let by = object.has("by") ? try object.user("by") : nil
                let endResult = object.has("endResult") ? try object.raw("endResult", CallEndResult.self) : nil
                let media = object.has("media") ? try object.side("media") : nil
                event = .callStatus(status, by: by, endResult: endResult, media: media)
            }
            return .notify(session: session, side: side, summary: summary, event: event)
        case "hold":
            return .hold(callID: try object.callID("callId"), held: try object.bool("held"))
        case "endMedia":
            return .endMedia(callID: try object.callID("callId"))
        case "method":
            return .method(name: try object.oneOf("method", ClusterCallMessage.methods.sorted()),
                           callID: try object.callID("callId"), session: try object.sessionID("session"),
                           user: try object.user("user"), appKey: try object.text("app", bytes: 1...128))
        default:
            return .media(callID: try object.callID("callId"), side: try object.side("side"),
                          playing: try object.oneOf("status", ["playing", "failed"]) == "playing")
        }
    }

    static func summary(_ object: StrictReader) throws(DecodingError) -> CallSummary {
        let custom = try object.text("custom", bytes: 2...maxCustomBytes)
        guard (try? JSONValue.parse(custom))?.objectValue != nil else {
            throw DecodingError(field: object.path("custom"), problem: "must be a JSON object's text")
        }
        let nodes = try object.array("nodes", count: 0...maxMessages)
        var names: [String] = []
        for item in nodes { names.append(try item.nodeIDValue()) }
        return CallSummary(id: try object.callID("id"), home: try object.nodeID("home"),
                           appKey: try object.text("app", bytes: 1...128), caller: try object.user("caller"),
                           callee: try object.user("callee"), video: try object.bool("video"),
                           audio: try object.bool("audio"), customJSON: custom,
                           startedAt: try object.integer("startedAt", range: 0...Int64.max),
                           answeredAt: object.has("answeredAt") ? try object.integer("answeredAt", range: 0...Int64.max) : nil,
                           nodes: names)
    }
}
