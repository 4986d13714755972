import SluiceControl
import SluiceJSON
import SluiceVocabulary

/// `precall` (docs/protocol.md section 6, "Pre-call test"): the app's rules and rate, then
/// the media engine. Its events come back as `MediaEvent.precall`.
extension SessionManager {
    /// nil when the app turned the test off; the defaults for a session of no configured app.
    func precallPolicy(of session: RPCSession) -> PrecallPolicy? {
        guard let app = session.appKey.flatMap({ config.app(withKey: $0) }) else { return PrecallPolicy() }
        return app.precall
    }

    func precall(_ params: RPCParams, session: RPCSession, sessionID: SessionID) throws(RPCError) -> JSONValue {
        let sdp = try params.sdp()
        let seconds = try Self.precallSeconds(params.members["seconds"])
        guard let policy = precallPolicy(of: session) else { throw RPCError(MediaError.restrictedAccess) }
        try requireHandleCapacity(session)
        let answer = try startPrecall(offer: sdp, seconds: seconds, policy: policy, appKey: session.appKey ?? "",
                                      sessionID: sessionID)
        session.handles[answer.handle] = RPCSession.HandleRecord(role: .publish, stream: "")
        return ["handle": .string(answer.handle), "sdp": .string(answer.sdp)]
    }

    /// The app's per-minute rate, then the engine (shared with `POST /precall`).
    func startPrecall(offer: String, seconds: Int?, policy: PrecallPolicy, appKey: String,
                      sessionID: SessionID) throws(RPCError) -> MediaAnswer {
        let now = clock()
        guard precallRate.allows(app: appKey, perMinute: policy.perMinute, now: now) else {
            throw .limitReached("precalls per minute")
        }
        let answer: MediaAnswer
        do throws(MediaError) {
            answer = try media.precall(PrecallRequest(session: sessionID, offer: offer,
                                                      seconds: seconds ?? policy.seconds, maxKbps: policy.maxKbps))
        } catch {
            throw RPCError(error)
        }
        precallRate.started(app: appKey, now: now)
        return answer
    }

    /// `seconds`: a whole number from 1 to 10, or absent.
    static func precallSeconds(_ value: JSONValue?) throws(RPCError) -> Int? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.doubleValue, number == number.rounded(),
              number >= 1, number <= Double(PrecallPolicy.maxSeconds) else {
            throw .invalidParams("'seconds' must be a whole number from 1 to \(PrecallPolicy.maxSeconds)")
        }
        return Int(number)
    }
}
