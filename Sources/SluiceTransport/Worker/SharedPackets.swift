import SluiceWire
import Synchronization

/// Reference counts over a worker's `PacketBufferPool`, for the packets the worker stores once
/// and lends to other workers (cross-worker fan-out, docs/design.md "One stream on every
/// worker"). A buffer taken here starts with one reference, its owner's. Every other worker
/// that is handed the buffer holds one more and gives it back with `releaseRemote`, from its
/// own thread. Only the owning worker takes buffers, gives them back to the pool and writes
/// into them; a buffer is rewritten only while its owner holds the sole reference.
///
/// Released by its owner while others still hold it, a buffer waits in the orphan list, which
/// the owner's loop sweeps every turn (`sweep`) for buffers whose count fell to zero. So the
/// pool's free list stays single-threaded, and no worker ever waits on another.
// @unchecked: buffer counts are atomics; the orphan list and the pool's free list are the owner's thread's alone.
public final class SharedPackets: @unchecked Sendable {
    public let pool: PacketBufferPool
    private let counts: UnsafeMutablePointer<Atomic<UInt32>>
    /// Buffers released by their owner and still held elsewhere; at most one entry per buffer.
    private let orphans: UnsafeMutablePointer<Int32>
    private let orphanCount: UnsafeMutablePointer<Int>

    public init(pool: PacketBufferPool) {
        self.pool = pool
        counts = .allocate(capacity: pool.capacity)
        for i in 0..<pool.capacity { (counts + i).initialize(to: Atomic(0)) }
        orphans = .allocate(capacity: pool.capacity)
        orphanCount = .allocate(capacity: 1)
        orphanCount.initialize(to: 0)
    }

    deinit {
        counts.deinitialize(count: pool.capacity)
        counts.deallocate()
        orphans.deallocate()
        orphanCount.deallocate()
    }

    // MARK: Owner's thread

    /// A buffer with one reference (the caller's), or nil when the pool is empty.
    @inline(__always)
    public func take() -> Int32? {
        guard let buffer = pool.take() else { return nil }
        counts[Int(buffer)].store(1, ordering: .relaxed)
        return buffer
    }

    /// One more holder (before the buffer is handed to another worker).
    @inline(__always)
    public func retain(_ buffer: Int32) {
        counts[Int(buffer)].add(1, ordering: .relaxed)
    }

    /// Undoes a `retain` whose hand-over failed (the queue was full). The owner still holds
    /// its own reference, so the count cannot reach zero here.
    @inline(__always)
    public func unretain(_ buffer: Int32) {
        counts[Int(buffer)].subtract(1, ordering: .relaxed)
    }

    /// Whether the owner's is the only reference, so the buffer may be rewritten in place.
    @inline(__always)
    public func isExclusive(_ buffer: Int32) -> Bool {
        counts[Int(buffer)].load(ordering: .acquiring) == 1
    }

    /// The owner lets go: the buffer goes back to the pool now, or once the others have.
    @inline(__always)
    public func release(_ buffer: Int32) {
        let (_, left) = counts[Int(buffer)].subtract(1, ordering: .acquiringAndReleasing)
        if left == 0 {
            pool.give(buffer)
        } else {
            orphans[orphanCount.pointee] = buffer
            orphanCount.pointee += 1
        }
    }

    /// Gives the orphans whose last holder let go back to the pool (once per loop turn).
    public func sweep() {
        var kept = 0
        let count = orphanCount.pointee
        guard count > 0 else { return }
        for i in 0..<count {
            let buffer = orphans[i]
            if counts[Int(buffer)].load(ordering: .acquiring) == 0 {
                pool.give(buffer)
            } else {
                orphans[kept] = buffer
                kept += 1
            }
        }
        orphanCount.pointee = kept
    }

    /// Buffers released by the owner and still held by another worker.
    public var orphansHeld: Int { orphanCount.pointee }

    // MARK: Any thread

    /// Another worker lets go of a buffer it was handed. Never touches the pool.
    @inline(__always)
    public func releaseRemote(_ buffer: Int32) {
        counts[Int(buffer)].subtract(1, ordering: .releasing)
    }

    /// The buffer's bytes, for reading by a worker that holds a reference.
    @inline(__always)
    public func bytes(_ buffer: Int32, count: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: pool.pointer(buffer), count: count)
    }

    /// The current reference count (tests and diagnostics).
    public func references(_ buffer: Int32) -> UInt32 { counts[Int(buffer)].load(ordering: .acquiring) }
}
