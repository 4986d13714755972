import Foundation
import SluiceCalls
import Testing

/// A call log with 100,000 calls of 1,000 users, and the times of the pages that matter: a
/// user's first page of 20 (`callLog`), the admin's page of 100 (`GET /api/v1/calls`), a
/// user's page deep in the past (by cursor) and an app's time window. Shared by
/// `CallLogScaleTests` (SQLite, every run) and `CallLogBenchmark` (SQLite beside PostgreSQL).
/// Times are printed, never asserted: the machines are shared.
enum CallLogScale {
    static let count = 100_000
    static let base: Int64 = 1_700_000_000_000

    struct Figures: CustomStringConvertible {
        var store: String
        var writeAllMs: Int
        /// Median and 95th percentile of each page, in µs.
        var pages: [(name: String, median: Int, p95: Int)]

        var description: String {
            "{\"store\": \"\(store)\", \"calls\": \(CallLogScale.count), \"writeAllMs\": \(writeAllMs), "
                + pages.map { "\"\($0.name)Us\": \($0.median), \"\($0.name)P95Us\": \($0.p95)" }.joined(separator: ", ") + "}"
        }
    }

    /// Fills `store` (empty), runs `afterLoad`, and times each page `runs` times; checks what
    /// the pages hold.
    static func measure(_ store: CallLogStore, name: String, runs: Int = 200,
                        afterLoad: () throws -> Void = {}) throws -> Figures {
        let users = (0..<1000).map { "user\($0)" }
        let writeStart = ContinuousClock.now
        for n in 0..<count {
            store.write(record(n, caller: users[n % 1000], callee: users[(n * 7 + 1) % 1000],
                               app: n % 10 == 0 ? "other" : "app", startedAt: base + Int64(n) * 1000))
            // In bursts a writer keeps up with: a burst over PostgreSQL's in-memory bound
            // (10,000) would drop its oldest records, as it is meant to.
            if n % 5000 == 4999 { store.flush() }
        }
        store.flush()
        let writeMs = Int((ContinuousClock.now - writeStart) / .milliseconds(1))
        #expect(store.droppedWrites == 0)
        try afterLoad()

        func time(_ query: CallLogQuery) throws -> (median: Int, p95: Int, page: CallLogPage) {
            var times: [Double] = []
            var page = CallLogPage(records: [], nextCursor: nil)
            for _ in 0..<runs {
                let start = ContinuousClock.now
                page = try store.query(query)
                times.append((ContinuousClock.now - start) / .microseconds(1))
            }
            times.sort()
            return (Int(times[runs / 2]), Int(times[runs * 95 / 100]), page)
        }
        let middle = base + 50_000 * 1000
        let user = try time(CallLogQuery(appKey: "app", user: "user42", limit: 20))
        let admin = try time(CallLogQuery(limit: 100))
        let deep = try time(CallLogQuery(user: "user42", limit: 20, cursor: CallLogCursor(startedAt: middle, callID: "0")))
        let window = try time(CallLogQuery(appKey: "other", from: base + 10_000_000, to: base + 20_000_000, limit: 100))
        #expect(user.page.records.count == 20)
        #expect(user.page.records.allSatisfy { ($0.caller == "user42" || $0.callee == "user42") && $0.appKey == "app" })
        #expect(admin.page.records.count == 100)
        #expect(admin.page.records.first?.callID == String(format: "%032x", count - 1))
        #expect(deep.page.records.count == 20)
        #expect(deep.page.records.allSatisfy { $0.startedAt < middle })
        #expect(window.page.records.count == 100)
        #expect(window.page.records.allSatisfy { $0.appKey == "other" && $0.startedAt < base + 20_000_000 })
        return Figures(store: name, writeAllMs: writeMs,
                       pages: [("userPage", user.median, user.p95), ("adminPage", admin.median, admin.p95),
                               ("userDeepPage", deep.median, deep.p95), ("appWindowPage", window.median, window.p95)])
    }
}
