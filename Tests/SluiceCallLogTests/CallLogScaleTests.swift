import Foundation
import SluiceCallLog
import SluiceCalls
import Testing

/// The call log at 100,000 calls: a user's first page and the admin's must stay an index
/// walk. The times are printed as figures (`CALL_LOG_FIGURES`), never asserted: the machines
/// are shared.
@Suite struct CallLogScaleTests {
    @Test func aHundredThousandCalls() throws {
        let path = scratchFile()
        let log = try CallLogDatabase(path: path)
        defer { log.close() }
        let count = 100_000
        let base: Int64 = 1_700_000_000_000
        let users = (0..<1000).map { "user\($0)" }
        let writeStart = ContinuousClock.now
        for n in 0..<count {
            log.write(record(n, caller: users[n % 1000], callee: users[(n * 7 + 1) % 1000],
                             app: n % 10 == 0 ? "other" : "app", startedAt: base + Int64(n) * 1000))
        }
        log.flush()
        let writeMs = (ContinuousClock.now - writeStart) / .milliseconds(1)

        func microseconds(_ query: CallLogQuery, runs: Int = 50) throws -> (median: Double, page: CallLogPage) {
            var times: [Double] = []
            var page = CallLogPage(records: [], nextCursor: nil)
            for _ in 0..<runs {
                let start = ContinuousClock.now
                page = try log.query(query)
                times.append((ContinuousClock.now - start) / .microseconds(1))
            }
            return (times.sorted()[runs / 2], page)
        }
        let middle = base + 50_000 * 1000
        let user = try microseconds(CallLogQuery(appKey: "app", user: "user42", limit: 20))
        let admin = try microseconds(CallLogQuery(limit: 100))
        let deep = try microseconds(CallLogQuery(user: "user42", limit: 20,
                                                 cursor: CallLogCursor(startedAt: middle, callID: "0")))
        let window = try microseconds(CallLogQuery(appKey: "other", from: base + 10_000_000,
                                                   to: base + 20_000_000, limit: 100))
        #expect(user.page.records.count == 20)
        #expect(user.page.records.allSatisfy { ($0.caller == "user42" || $0.callee == "user42") && $0.appKey == "app" })
        #expect(admin.page.records.count == 100)
        #expect(admin.page.records.first?.callID == String(format: "%032x", count - 1))
        #expect(deep.page.records.count == 20)
        #expect(deep.page.records.allSatisfy { $0.startedAt < middle })
        #expect(window.page.records.count == 100)
        #expect(window.page.records.allSatisfy { $0.appKey == "other" && $0.startedAt < base + 20_000_000 })
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("CALL_LOG_FIGURES {\"calls\": \(count), \"writeAllMs\": \(Int(writeMs)), "
              + "\"userPageUs\": \(Int(user.median)), \"adminPageUs\": \(Int(admin.median)), "
              + "\"userDeepPageUs\": \(Int(deep.median)), \"appWindowPageUs\": \(Int(window.median)), \"fileBytes\": \(bytes)}")
    }
}
