import Synchronization

/// A bounded single-producer, single-consumer ring of `RelayEntry`s from one worker to
/// another: the sending worker pushes during its fan-out, the receiving worker pops in its
/// loop (`WorkerRelay.pump`). Lock-free: each side owns one index and publishes it with
/// release ordering; the other reads it with acquire ordering. Each side also keeps a private
/// copy of the other's index, so a push or pop reads the shared one only when its copy says
/// the ring is full or empty.
///
/// A full ring drops the packet (counted in `dropped`): a worker that falls behind costs its
/// own players a loss, never the sender a wait.
// @unchecked: single producer, single consumer: each slot is handed over by the release/acquire of `head` and `tail`.
final class RelayQueue: @unchecked Sendable {
    static let capacity = 4096
    private static let mask = capacity - 1

    private let slots: UnsafeMutablePointer<RelayEntry>
    /// Next slot the consumer reads; written by the consumer only.
    private let head = Atomic<Int>(0)
    /// Next slot the producer writes; written by the producer only.
    private let tail = Atomic<Int>(0)
    /// [0]: the producer's copy of `head`; [1]: the consumer's copy of `tail`. Each is read and
    /// written by its own side only.
    private let cached: UnsafeMutablePointer<Int>

    let dropped = Atomic<UInt64>(0)

    init() {
        slots = .allocate(capacity: Self.capacity)
        slots.initialize(repeating: RelayEntry(), count: Self.capacity)
        cached = .allocate(capacity: 2)
        cached.initialize(repeating: 0, count: 2)
    }

    deinit {
        slots.deallocate()
        cached.deallocate()
    }

    /// Producer's thread. False (and counted) when the ring is full.
    @inline(__always)
    func push(_ entry: RelayEntry) -> Bool {
        let position = tail.load(ordering: .relaxed)
        if position - cached[0] >= Self.capacity {
            cached[0] = head.load(ordering: .acquiring)
            if position - cached[0] >= Self.capacity {
                dropped.add(1, ordering: .relaxed)
                return false
            }
        }
        slots[position & Self.mask] = entry
        tail.store(position + 1, ordering: .releasing)
        return true
    }

    /// Consumer's thread: the oldest entry, or nil when the ring is empty.
    @inline(__always)
    func pop() -> RelayEntry? {
        let position = head.load(ordering: .relaxed)
        if position == cached[1] {
            cached[1] = tail.load(ordering: .acquiring)
            if position == cached[1] { return nil }
        }
        let entry = slots[position & Self.mask]
        head.store(position + 1, ordering: .releasing)
        return entry
    }

    /// Entries ever pushed (any thread; the producer's index is the count).
    var pushed: Int { tail.load(ordering: .relaxed) }

    /// Entries waiting (either side; a snapshot).
    var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }
}
