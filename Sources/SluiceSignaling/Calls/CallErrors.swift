import SluiceCalls

/// The call methods' errors, as docs/protocol.md section 5 spells them.
extension RPCError {
    public static let unknownCall = RPCError(code: 1014, message: "Unknown call", reason: "UNKNOWN_CALL")
    public static let identityRequired = RPCError(
        code: 1016, message: "Calls need a user: connect with a token that has sub, or with user where the app trusts it",
        reason: "IDENTITY_REQUIRED")

    public static func wrongCallState(_ why: String) -> RPCError {
        RPCError(code: 1015, message: "The call cannot do this now: \(why)", reason: "WRONG_CALL_STATE")
    }

    public init(_ refusal: CallRefusal) {
        switch refusal {
        case .identityRequired: self = .identityRequired
        case .callingSelf: self = .invalidParams("'to' must be another user than the caller")
        case .unknownCall: self = .unknownCall
        case .wrongState(let why): self = .wrongCallState(why)
        case .rateLimited: self = .limitReached("calls per minute")
        }
    }

    /// `callLog` and the admin API without `calls.database`.
    public static let callLogOff = RPCError.limitReached("the call log is off (calls.database is empty)")
}
