/// A page of the call log: `GET /api/v1/calls` and `callLog`. Newest first, by `startedAt`
/// and then `callID`.
public struct CallLogQuery: Sendable, Equatable {
    /// Only this app's calls; nil: every app's (the admin API without `app`).
    public var appKey: String?
    /// Only calls this user is a party of (caller or callee).
    public var user: String?
    /// `startedAt >= from`.
    public var from: Int64?
    /// `startedAt < to`.
    public var to: Int64?
    /// Records in the page, at least 1.
    public var limit: Int
    /// Where the page before ended.
    public var cursor: CallLogCursor?

    public init(appKey: String? = nil, user: String? = nil, from: Int64? = nil, to: Int64? = nil,
                limit: Int = 20, cursor: CallLogCursor? = nil) {
        self.appKey = appKey
        self.user = user
        self.from = from
        self.to = to
        self.limit = limit
        self.cursor = cursor
    }
}

/// The last record of a page: the next page starts after it.
public struct CallLogCursor: Sendable, Equatable {
    public var startedAt: Int64
    public var callID: String

    public init(startedAt: Int64, callID: String) {
        self.startedAt = startedAt
        self.callID = callID
    }

    /// The opaque text clients get (`nextCursor`) and give back: `<startedAt>.<callID>`.
    public var encoded: String { "\(startedAt).\(callID)" }

    /// Nil for a text that no page gave out.
    public init?(encoded: String) {
        let parts = encoded.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let startedAt = Int64(parts[0]), startedAt >= 0,
              !parts[1].isEmpty, parts[1].count <= 64,
              parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        self.startedAt = startedAt
        self.callID = String(parts[1])
    }
}

public struct CallLogPage: Sendable, Equatable {
    public var records: [CallRecord]
    /// Set when the page was full: more may follow.
    public var nextCursor: CallLogCursor?

    public init(records: [CallRecord], nextCursor: CallLogCursor?) {
        self.records = records
        self.nextCursor = nextCursor
    }
}
