#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SluiceServer

/// RLIMIT_NOFILE at start: raised to the hard limit, and a warning when that is too low.
@Suite(.serialized) struct OpenFileLimitTests {
    @Test func raiseLeavesTheSoftLimitAtTheHardLimit() {
        let outcome = OpenFileLimit.raise()
        #expect(outcome.failure == nil)
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #expect(UInt64(limit.rlim_cur) == outcome.soft)
        if limit.rlim_max != rlim_t.max { #expect(outcome.soft == outcome.hard) }
        #expect(outcome.soft >= outcome.before)
    }

    @Test func theEstimateGrowsWithSessionsAndWorkers() {
        var config = ServerConfig()
        config.maxSessions = 1000
        config.rtcWorkers = 2
        #expect(OpenFileLimit.needed(config) == 2000 + 8 + 64)
        config.maxSessions = 50_000
        #expect(OpenFileLimit.needed(config) == 100_000 + 8 + 64)
    }

    @Test func aLimitBelowTheEstimateWarns() {
        let low = OpenFileLimit.Outcome(before: 1024, soft: 1024, hard: 1024, failure: nil)
        let warning = OpenFileLimit.report(low, needed: 2072)
        #expect(warning.isWarning)
        #expect(warning.message.contains("1024") && warning.message.contains("2072") && warning.message.contains("LimitNOFILE"))

        let raised = OpenFileLimit.Outcome(before: 1024, soft: 524_288, hard: 524_288, failure: nil)
        let fine = OpenFileLimit.report(raised, needed: 2072)
        #expect(!fine.isWarning)
        #expect(fine.message == "open-file limit raised from 1024 to 524288 (the hard limit); the config needs about 2072")

        let failed = OpenFileLimit.Outcome(before: 1024, soft: 1024, hard: 4096, failure: "setrlimit: Operation not permitted")
        #expect(OpenFileLimit.report(failed, needed: 100).isWarning)
    }
}
