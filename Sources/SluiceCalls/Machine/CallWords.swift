/// The statuses of docs/protocol.md section 6, "Calls", as sent in `callStatus`.
public enum CallStatus: String, Sendable, CaseIterable {
    case ringing = "RINGING"
    case connecting = "CONNECTING"
    case connected = "CONNECTED"
    case onHold = "ON_HOLD"
    case ended = "ENDED"
}

/// Why a call ended: Sendbird's end results, as sent in `callStatus`'s `endResult`.
public enum CallEndResult: String, Sendable, CaseIterable {
    case completed
    case declined
    case canceled
    case timedOut
    case noAnswer
    case connectionLost
    /// To the callee's other ringing sessions only: the call itself goes on.
    case otherDeviceAccepted
    case busy
    case unknown
}

/// The two parties of a call.
public enum CallSide: String, Sendable, CaseIterable {
    case caller
    case callee

    public var other: CallSide { self == .caller ? .callee : .caller }
}

/// A user within one app: users of different apps never meet.
public struct CallUser: Hashable, Sendable {
    public var appKey: String
    public var name: String

    public init(appKey: String, name: String) {
        self.appKey = appKey
        self.name = name
    }
}
