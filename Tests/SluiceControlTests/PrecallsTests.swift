@testable import SluiceControl
import SluiceMedia
import SluiceVocabulary
import Testing

/// Pre-call tests' rules on their own: one per session at a time, their worker's progress
/// and report as `precall` events to their session, and their ends (the report, a failure,
/// a `stop` or the session's end), each told at most once.
@Suite(.serialized) final class PrecallsTests {
    let parts: ControlParts
    let precalls: Precalls

    init() throws {
        parts = try ControlParts()
        precalls = Precalls(pool: parts.pool, negotiator: Negotiation(fingerprint: parts.security.fingerprint),
                            outbox: parts.outbox, consentTimeoutMicros: 10_000_000)
    }

    deinit { parts.stop() }

    func start(_ session: SessionID) throws(MediaError) -> MediaAnswer {
        try precalls.start(PrecallRequest(session: session, offer: MediaEngineRegistryTests.offer(direction: "sendonly"),
                                          seconds: 5, maxKbps: 2000), worker: 0)
    }

    /// (session, handle, type, ends) of each `precall` event queued so far.
    func told() -> [String] {
        parts.events().compactMap {
            if case .precall(let session, let handle, let type, _, let ends) = $0 { return "\(session) \(handle) \(type) \(ends)" }
            return nil
        }
    }

    @Test func oneTestAtATimePerSession() throws {
        let first = try start("s1")
        #expect(first.handle.hasPrefix("precall-") && first.sdp.contains("a=recvonly"))
        #expect(throws: MediaError.limitReached("one precall at a time")) { try self.start("s1") }
        _ = try start("s2")
        #expect(precalls.count == 2 && precalls.workers == [0, 0])
        #expect(precalls.owns(first.handle) && !precalls.owns("pub-1"))
        #expect(throws: MediaError.self) {
            try self.precalls.start(PrecallRequest(session: "s3", offer: "not sdp", seconds: 5, maxKbps: 2000), worker: 0)
        }
        #expect(precalls.count == 2)
    }

    /// Progress keeps the test; the report ends it, and nothing more is told of it.
    @Test func theReportEndsTheTest() throws {
        let handle = try start("s1").handle
        precalls.workerEvent(.precallProgress(handle, PrecallFigures()))
        precalls.workerEvent(.precallDone(handle, PrecallFigures()))
        precalls.workerEvent(.precallProgress(handle, PrecallFigures()))
        #expect(told() == ["s1 \(handle) precallProgress false", "s1 \(handle) precallReport true"])
        #expect(!precalls.owns(handle) && precalls.count == 0)
        // The session may start another.
        _ = try start("s1")
    }

    @Test func aFailureEndsTheTestWithItsInfo() throws {
        let handle = try start("s1").handle
        precalls.failed(handle, info: StatusInfo.failure(.iceTimeout))
        let events = parts.events()
        guard case .precall(_, _, let type, let data, let ends) = events.first, events.count == 1 else {
            Issue.record("one precall event, not \(events)")
            return
        }
        #expect(type == "precallFailed" && data["info"] == .string(StatusInfo.failure(.iceTimeout)) && ends)
        #expect(!precalls.owns(handle))
    }

    /// A `stop` or the session's end drops the test with no event.
    @Test func aStopOrTheSessionsEndIsSilent() throws {
        let first = try start("s1").handle
        let second = try start("s2").handle
        precalls.endSession("s1")
        precalls.end(second)
        #expect(!precalls.owns(first) && !precalls.owns(second))
        #expect(told().isEmpty)
    }
}
