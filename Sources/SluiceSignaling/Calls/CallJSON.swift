import SluiceCalls
import SluiceJSON
import SluiceJSONParser

/// The call notifications and the call log's records in the words of docs/protocol.md
/// section 6, "Calls". The admin API renders pages with the same functions.
public enum CallJSON {
    public static func incomingCall(_ call: Call, custom: String) -> JSONObject {
        incomingCall(callID: call.id, from: call.caller, video: call.video, audio: call.audio, custom: custom)
    }

    public static func incomingCall(callID: String, from caller: String, video: Bool, audio: Bool, custom: String) -> JSONObject {
        ["callId": .string(callID), "from": .string(caller), "video": .bool(video), "audio": .bool(audio),
         "custom": parsedCustom(custom)]
    }

    public static func callStatus(_ call: Call, status: CallStatus, by: String?, endResult: CallEndResult?,
                                  media side: CallSide?) -> JSONObject {
        callStatus(callID: call.id, status: status, by: by, endResult: endResult, media: side)
    }

    /// A call's stream names come from its id alone, so a node that mirrors a call (its home is
    /// another) says the same as the home would.
    public static func callStatus(callID: String, status: CallStatus, by: String?, endResult: CallEndResult?,
                                  media side: CallSide?) -> JSONObject {
        var body: JSONObject = ["callId": .string(callID), "status": .string(status.rawValue)]
        if let by { body["by"] = .string(by) }
        if let endResult {
            body["endResult"] = .string(endResult.rawValue)
            body["reason"] = .string(reason(endResult, by: by))
        }
        if let side {
            body["publish"] = .string(CallStreamName.make(callID: callID, side: side))
            body["play"] = .string(CallStreamName.make(callID: callID, side: side.other))
        }
        return body
    }

    /// A line for a person: what the end result means.
    static func reason(_ result: CallEndResult, by: String?) -> String {
        switch result {
        case .completed: return "Hung up by \(by ?? "a party")"
        case .declined: return "Declined by \(by ?? "the callee")"
        case .canceled: return "Canceled by \(by ?? "the caller")"
        case .timedOut: return "Not answered in time"
        case .noAnswer: return "The callee is not online"
        case .connectionLost: return "A party's connection was lost"
        case .otherDeviceAccepted: return "Accepted on another device"
        case .busy: return "The callee is in another call"
        case .unknown: return "Server shutdown"
        }
    }

    public static func record(_ record: CallRecord) -> JSONObject {
        func time(_ value: Int64?) -> JSONValue { value.map { .int($0) } ?? .null }
        return ["callId": .string(record.callID), "appKey": .string(record.appKey), "caller": .string(record.caller),
                "callee": .string(record.callee), "video": .bool(record.video), "audio": .bool(record.audio),
                "custom": parsedCustom(record.customJSON), "startedAt": .int(record.startedAt),
                "answeredAt": time(record.answeredAt), "endedAt": time(record.endedAt),
                "durationMs": .int(record.durationMs),
                "endResult": record.endResult.map { .string($0) } ?? .null,
                "endedBy": record.endedBy.map { .string($0) } ?? .null]
    }

    public static func page(_ page: CallLogPage) -> JSONObject {
        var body: JSONObject = ["calls": .array(page.records.map { .object(record($0)) })]
        if let cursor = page.nextCursor { body["nextCursor"] = .string(cursor.encoded) }
        return body
    }

    /// The stored text back to an object; `{}` for anything else (it was written by us).
    static func parsedCustom(_ text: String) -> JSONValue {
        guard text != "{}", let value = try? JSONValue.parse(text), value.objectValue != nil else {
            return .object(JSONObject())
        }
        return value
    }
}
