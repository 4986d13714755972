import SluiceControl
import SluiceJSON
import SluiceVocabulary

/// `precall` (docs/protocol.md section 6, "Pre-call test"): the app's rules and rate, then
/// the media engine. Its events come back as `MediaEvent.precall`.
final class PrecallHandler {
    let table: SessionTable
    /// Pre-call tests started per app in the last minute.
    private(set) var rate = PrecallRateLimiter()

    init(table: SessionTable) {
        self.table = table
    }

    /// nil when the app turned the test off; the defaults for a session of no configured app.
    func policy(of session: RPCSession) -> PrecallPolicy? {
        guard let app = table.app(of: session) else { return PrecallPolicy() }
        return app.precall
    }

    func precall(_ params: RPCParams, session: RPCSession, sessionID: SessionID) throws(RPCError) -> JSONValue {
        let sdp = try params.sdp()
        let seconds = try Self.precallSeconds(params.members["seconds"])
        guard let policy = policy(of: session) else { throw RPCError(MediaError.restrictedAccess) }
        try table.requireHandleCapacity(session)
        let answer = try startPrecall(offer: sdp, seconds: seconds, policy: policy, appKey: session.appKey ?? "",
                                      sessionID: sessionID)
        session.handles[answer.handle] = RPCSession.HandleRecord(role: .publish, stream: "")
        return ["handle": .string(answer.handle), "sdp": .string(answer.sdp)]
    }

    /// The app's per-minute rate, then the engine (shared with `POST /precall`).
    func startPrecall(offer: String, seconds: Int?, policy: PrecallPolicy, appKey: String,
                      sessionID: SessionID) throws(RPCError) -> MediaAnswer {
        let now = table.clock()
        guard rate.allows(app: appKey, perMinute: policy.perMinute, now: now) else {
            throw .limitReached("precalls per minute")
        }
        let answer: MediaAnswer
        do throws(MediaError) {
            answer = try table.media.precall(PrecallRequest(session: sessionID, offer: offer,
                                                            seconds: seconds ?? policy.seconds, maxKbps: policy.maxKbps))
        } catch {
            throw RPCError(error)
        }
        rate.started(app: appKey, now: now)
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
