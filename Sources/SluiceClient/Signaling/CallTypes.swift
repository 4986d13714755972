import SluiceJSON

/// A call's status (docs/protocol.md section 6, "Calls").
public struct CallStatus: SluiceProtocolName {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let ringing: CallStatus = "RINGING"
    public static let connecting: CallStatus = "CONNECTING"
    public static let connected: CallStatus = "CONNECTED"
    public static let onHold: CallStatus = "ON_HOLD"
    public static let ended: CallStatus = "ENDED"
}

/// Why a call ended (Sendbird's end results).
public struct CallEndResult: SluiceProtocolName {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let completed: CallEndResult = "completed"
    public static let declined: CallEndResult = "declined"
    public static let canceled: CallEndResult = "canceled"
    public static let timedOut: CallEndResult = "timedOut"
    public static let noAnswer: CallEndResult = "noAnswer"
    public static let connectionLost: CallEndResult = "connectionLost"
    public static let otherDeviceAccepted: CallEndResult = "otherDeviceAccepted"
    public static let busy: CallEndResult = "busy"
    public static let unknown: CallEndResult = "unknown"
}

/// The call's two stream names: this side publishes `publish` and plays `play` (with
/// `wait: true`), through the usual `publish` and `play`.
public struct CallStreams: Sendable, Hashable {
    public var publish: String
    public var play: String

    public init(publish: String, play: String) {
        self.publish = publish
        self.play = play
    }

    init?(_ params: JSONValue) {
        guard let publish = params["publish"]?.stringValue, let play = params["play"]?.stringValue else { return nil }
        self.init(publish: publish, play: play)
    }
}

/// `incomingCall`: a ring on this session.
public struct IncomingCall: Sendable, Hashable {
    public var callId: String
    public var from: String
    public var video: Bool
    public var audio: Bool
    public var custom: JSONValue?

    public init(callId: String, from: String, video: Bool = true, audio: Bool = true, custom: JSONValue? = nil) {
        self.callId = callId
        self.from = from
        self.video = video
        self.audio = audio
        self.custom = custom
    }
}

/// `callStatus`. `streams` comes with CONNECTING, and with the status a reconnected session is
/// told of a call it takes over; `endResult` and `by` with ENDED (`by` also with ON_HOLD).
public struct CallStatusUpdate: Sendable, Hashable {
    public var callId: String
    public var status: CallStatus
    public var endResult: CallEndResult?
    public var by: String?
    public var streams: CallStreams?

    public init(callId: String, status: CallStatus, endResult: CallEndResult? = nil, by: String? = nil,
                streams: CallStreams? = nil) {
        self.callId = callId
        self.status = status
        self.endResult = endResult
        self.by = by
        self.streams = streams
    }
}

/// One call of the call log. Times are milliseconds since the epoch.
public struct CallLogEntry: Sendable, Hashable {
    public var callId: String
    public var caller: String
    public var callee: String
    public var video: Bool
    public var audio: Bool
    public var startedAt: Int64
    public var answeredAt: Int64?
    public var endedAt: Int64?
    public var durationMs: Int64
    public var endResult: CallEndResult?
    public var endedBy: String?
    public var custom: JSONValue?

    init?(_ json: JSONValue) {
        guard let callId = json["callId"]?.stringValue, let caller = json["caller"]?.stringValue,
              let callee = json["callee"]?.stringValue, let startedAt = json["startedAt"]?.intValue else { return nil }
        self.callId = callId
        self.caller = caller
        self.callee = callee
        video = json["video"]?.boolValue ?? false
        audio = json["audio"]?.boolValue ?? false
        self.startedAt = startedAt
        answeredAt = json["answeredAt"]?.intValue
        endedAt = json["endedAt"]?.intValue
        durationMs = json["durationMs"]?.intValue ?? 0
        endResult = json["endResult"]?.stringValue.map(CallEndResult.init(rawValue:))
        endedBy = json["endedBy"]?.stringValue
        custom = json["custom"]
    }
}

/// A page of `callLog`: newest first; pass `nextCursor` back for the next page.
public struct CallLogPage: Sendable, Hashable {
    public var calls: [CallLogEntry]
    public var nextCursor: String?
}
