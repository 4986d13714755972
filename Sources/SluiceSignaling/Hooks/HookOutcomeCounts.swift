import Synchronization

/// Every hook POST's outcome, counted by class for `/metrics`
/// (`sluice_hook_requests_total{outcome}`): an operator's alert on a backend that fails
/// (5xx, no answer in time, no connection) needs a number, and the log says each only once.
public final class HookOutcomeCounts: Sendable {
    /// The outcome classes, in the order `/metrics` lists them.
    public static let classes = ["2xx", "3xx", "4xx", "5xx", "timeout", "error"]
    // A lock per hook answer is nothing beside the HTTP exchange it counts.
    private let counts = Mutex([UInt64](repeating: 0, count: 6))

    public init() {}

    func count(_ outcome: HookOutcome) {
        let index: Int
        switch outcome {
        case .status(let code): index = max(0, min(3, code / 100 - 2))
        case .timedOut: index = 4
        case .failed: index = 5
        }
        counts.withLock { $0[index] += 1 }
    }

    /// (class, count) for each class.
    public var snapshot: [(outcome: String, count: UInt64)] {
        let values = counts.withLock { $0 }
        return Self.classes.indices.map { (Self.classes[$0], values[$0]) }
    }
}

/// Counts each outcome on its way back from the transport it wraps.
final class CountingHookTransport: HookTransport {
    let inner: HookTransport
    let counts: HookOutcomeCounts

    init(_ inner: HookTransport, counts: HookOutcomeCounts) {
        self.inner = inner
        self.counts = counts
    }

    func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void) {
        let counts = counts
        inner.post(request) { outcome in
            counts.count(outcome)
            completion(outcome)
        }
    }
}
