import SluiceCalls
import Testing

/// What every call log store must answer, and answer alike: the SQLite file and PostgreSQL
/// are given the same records and walked with the same queries (`CallLogDatabaseTests`,
/// `PostgresCallLogTests`), and `PostgresCallLogTests` compares their pages one by one.
enum CallLogStoreCases {
    /// 250 calls of three users in two apps; four share each start time, so the cursor's
    /// call id matters.
    static let records: [CallRecord] = (0..<250).map { n in
        let users = ["alice", "bob", "carol"]
        return record(n, caller: users[n % 3], callee: users[(n + 1) % 3], app: n % 5 == 0 ? "other" : "app",
                      startedAt: Int64(5000 + n / 4))
    }

    /// Each query, and which of `records` it must walk.
    static let queries: [(query: CallLogQuery, matches: @Sendable (CallRecord) -> Bool)] = [
        (CallLogQuery(limit: 7), { _ in true }),
        (CallLogQuery(user: "carol", limit: 20), { $0.caller == "carol" || $0.callee == "carol" }),
        (CallLogQuery(appKey: "other", limit: 9), { $0.appKey == "other" }),
        (CallLogQuery(appKey: "app", user: "alice", limit: 13),
         { $0.appKey == "app" && ($0.caller == "alice" || $0.callee == "alice") }),
        (CallLogQuery(from: 5010, to: 5040, limit: 11), { $0.startedAt >= 5010 && $0.startedAt < 5040 }),
        (CallLogQuery(user: "bob", from: 5020, to: 5021, limit: 1),
         { ($0.caller == "bob" || $0.callee == "bob") && $0.startedAt == 5020 }),
        (CallLogQuery(from: 6000), { _ in false }),
        (CallLogQuery(from: 5050, to: 5050), { _ in false }),
        (CallLogQuery(user: "dave"), { _ in false }),
    ]

    static func newestFirst(_ a: CallRecord, _ b: CallRecord) -> Bool {
        a.startedAt != b.startedAt ? a.startedAt > b.startedAt : a.callID > b.callID
    }

    /// Every page of `base`, following the cursors; each page full but the last.
    static func pages(_ store: CallLogStore, _ base: CallLogQuery) throws -> [CallLogPage] {
        var query = base, pages: [CallLogPage] = []
        while true {
            let page = try store.query(query)
            #expect(page.records.count <= base.limit)
            pages.append(page)
            guard let next = page.nextCursor, pages.count < 100 else { break }
            #expect(page.records.count == base.limit)
            query.cursor = next
        }
        return pages
    }

    /// Writes `records` to `store` and walks every query.
    static func check(_ store: CallLogStore) throws {
        records.forEach(store.write)
        store.flush()
        for (query, matches) in queries {
            let expected = records.filter(matches).sorted(by: newestFirst)
            #expect(try pages(store, query).flatMap(\.records) == expected, "\(query)")
        }
    }

    /// A call's three records (made, answered, ended) leave one row, the last.
    static func checkUpdateInPlace(_ store: CallLogStore) throws {
        var call = record(1)
        store.write(call)
        call.answeredAt = call.startedAt + 1500
        store.write(call)
        call.endedAt = call.startedAt + 9500
        call.durationMs = 8000
        call.endResult = "completed"
        call.endedBy = "bob"
        store.write(call)
        store.flush()
        let page = try store.query(CallLogQuery(user: "alice"))
        #expect(page.records == [call])
        #expect(page.nextCursor == nil)
        #expect(try store.query(CallLogQuery(user: "bob")).records == [call])
        #expect(try store.query(CallLogQuery(user: "carol")).records.isEmpty)
    }
}
