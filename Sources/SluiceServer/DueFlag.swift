import Synchronization

/// A flag one thread sets and another takes (reads and clears): "there is work for you".
final class DueFlag: Sendable {
    private let due = Atomic<Bool>(false)

    func set() { due.store(true, ordering: .releasing) }

    /// True once per `set()` (or run of them) since the last take.
    func take() -> Bool { due.exchange(false, ordering: .acquiringAndReleasing) }
}
