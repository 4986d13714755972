import Synchronization

/// How long datagrams stay in a worker: from the `recvmmsg` that returned them to the end of
/// the `sendmmsg` that sent what they caused (the forwarded copies for every player). The
/// delay the server adds to a packet, apart from any time it waited in the socket before the
/// worker read it (queueing when the worker is busy).
///
/// The worker counts into its own array (no atomics, no allocation on the packet path) and
/// copies it into a locked snapshot about once a second for /metrics.
// @unchecked: `counts` is the worker thread's alone; other threads read only `snapshot`, a Mutex.
public final class ForwardDelayHistogram: @unchecked Sendable {
    /// Upper bounds of the buckets, in microseconds; a last bucket takes the rest.
    public static let boundsMicros: [UInt64] = [25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000]

    /// Worker thread only. Memory behind a `let` pointer, not a stored array: a write into a
    /// class's stored array goes through a dynamic exclusivity check (docs/design.md, hot-path
    /// rule 8), and this one is written for every receive batch.
    private let counts: UnsafeMutablePointer<UInt64>
    private static let bucketCount = boundsMicros.count + 1
    private let snapshot = Mutex<[UInt64]>([UInt64](repeating: 0, count: boundsMicros.count + 1))

    public init() {
        counts = .allocate(capacity: Self.bucketCount)
        counts.initialize(repeating: 0, count: Self.bucketCount)
    }

    deinit {
        counts.deallocate()
    }

    /// `datagrams` read in one batch took `micros` from receive to the last send.
    @inline(__always)
    func record(micros: UInt64, datagrams: Int) {
        var bucket = 0
        while bucket < Self.boundsMicros.count && micros > Self.boundsMicros[bucket] { bucket += 1 }
        counts[bucket] &+= UInt64(datagrams)
    }

    /// Worker thread: makes the counts visible to `read()`. Copies element by element into
    /// the snapshot's own storage, so nothing is allocated.
    func publish() {
        snapshot.withLock { copy in
            for i in 0..<Self.bucketCount { copy[i] = counts[i] }
        }
    }

    /// Datagrams per bucket (not cumulative) as last published; the last entry is over the
    /// largest bound.
    public func read() -> [UInt64] {
        snapshot.withLock { $0 }
    }
}
