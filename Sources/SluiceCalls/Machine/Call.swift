import SluiceVocabulary

/// One call as the machine keeps it, until a minute after it ended.
public struct Call: Sendable, Equatable {
    public let id: String
    public let appKey: String
    public let caller: String
    public let callee: String
    public let video: Bool
    public let audio: Bool
    public internal(set) var status: CallStatus = .ringing
    /// The caller's device; nil while it is lost (waiting for a reconnect).
    public internal(set) var callerSession: SessionID?
    /// The callee's device from `accept` on; nil before, and while it is lost.
    public internal(set) var calleeSession: SessionID?
    /// The callee's sessions that were told `incomingCall` and still ring.
    public internal(set) var ringing: [SessionID] = []
    /// Who holds the call.
    public internal(set) var holds: Set<CallSide> = []
    /// The sides whose player of the other's stream turned PLAYING.
    public internal(set) var playing: Set<CallSide> = []
    /// Wall clock, ms since the epoch.
    public let startedAt: Int64
    public internal(set) var answeredAt: Int64?
    public internal(set) var endedAt: Int64?
    public internal(set) var endResult: CallEndResult?
    public internal(set) var endedBy: String?
    /// Monotonic µs: when a ringing call times out.
    var ringDeadline: UInt64
    /// Monotonic µs, per lost side: when it stops waiting for a reconnect.
    var lostDeadline: [CallSide: UInt64] = [:]
    /// Monotonic µs: when an ended call is forgotten.
    var forgetAt: UInt64 = .max

    init(id: String, appKey: String, caller: String, callee: String, video: Bool, audio: Bool,
         callerSession: SessionID, startedAt: Int64, ringDeadline: UInt64) {
        self.id = id
        self.appKey = appKey
        self.caller = caller
        self.callee = callee
        self.video = video
        self.audio = audio
        self.callerSession = callerSession
        self.startedAt = startedAt
        self.ringDeadline = ringDeadline
    }

    public var hasEnded: Bool { status == .ended }
    public var wasAccepted: Bool { answeredAt != nil }

    public func user(_ side: CallSide) -> String { side == .caller ? caller : callee }

    /// The session that is this side's device now, if any.
    public func device(_ side: CallSide) -> SessionID? { side == .caller ? callerSession : calleeSession }

    /// The side `user` is on; nil for a stranger.
    public func side(of user: String) -> CallSide? {
        if user == caller { return .caller }
        if user == callee { return .callee }
        return nil
    }

    /// The stream a side publishes: internal, unique, and reserved to the call (`CallStreamName`).
    public func stream(_ side: CallSide) -> String { CallStreamName.make(callID: id, side: side) }

    /// The log's view of the call.
    public func record(customJSON: String) -> CallRecord {
        var duration: Int64 = 0
        if let answeredAt, let endedAt { duration = max(0, endedAt - answeredAt) }
        return CallRecord(callID: id, appKey: appKey, caller: caller, callee: callee, video: video, audio: audio,
                          customJSON: customJSON, startedAt: startedAt, answeredAt: answeredAt, endedAt: endedAt,
                          durationMs: duration, endResult: endResult?.rawValue, endedBy: endedBy)
    }
}

/// `~call-<callId>-caller` and `~call-<callId>-callee`: names no client can pick, since `~`
/// starts none that the call streams reserve (publish and play check `CallStreamName.parse`).
public enum CallStreamName {
    public static let prefix = "~call-"

    public static func make(callID: String, side: CallSide) -> String { "\(prefix)\(callID)-\(side.rawValue)" }

    /// The call and side a reserved name names; nil for a name outside the reserve.
    public static func parse(_ name: String) -> (callID: String, side: CallSide)? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard let dash = rest.lastIndex(of: "-"), let side = CallSide(rawValue: String(rest[rest.index(after: dash)...])) else {
            return nil
        }
        return (String(rest[..<dash]), side)
    }

    public static func isReserved(_ name: String) -> Bool { name.hasPrefix(prefix) }
}
