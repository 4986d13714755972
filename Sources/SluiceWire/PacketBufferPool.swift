/// Fixed-size packet buffers carved from one allocation, recycled through a free list.
/// A worker owns its pool, so there is no locking; taking and returning a buffer costs
/// no heap allocation (docs/design.md, hot-path rule 1).
public final class PacketBufferPool {
    /// Room for a full-MTU datagram plus SRTP/SRTCP trailers and header growth.
    public static let bufferSize = 2048

    public let capacity: Int
    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let free: UnsafeMutablePointer<Int32>
    /// How many buffers are free, behind a `let` pointer: the packet path takes and gives
    /// inlined in other modules, where a stored `var` would cost a dynamic exclusivity check
    /// per call (docs/design.md, hot-path rule 8).
    @usableFromInline let freeCount: UnsafeMutablePointer<Int>

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.bufferSize, alignment: 64)
        free = .allocate(capacity: capacity)
        for i in 0..<capacity { free[i] = Int32(capacity - 1 - i) }
        freeCount = .allocate(capacity: 1)
        freeCount.initialize(to: capacity)
    }

    deinit {
        storage.deallocate()
        free.deallocate()
        freeCount.deallocate()
    }

    public var available: Int { freeCount.pointee }

    /// A buffer index, or nil when the pool is exhausted (the caller drops the packet).
    @inlinable @inline(__always)
    public func take() -> Int32? {
        guard freeCount.pointee > 0 else { return nil }
        freeCount.pointee -= 1
        return free[freeCount.pointee]
    }

    @inlinable @inline(__always)
    public func give(_ index: Int32) {
        precondition(freeCount.pointee < capacity, "buffer returned twice")
        free[freeCount.pointee] = index
        freeCount.pointee += 1
    }

    @inlinable @inline(__always)
    public func pointer(_ index: Int32) -> UnsafeMutableRawPointer {
        storage + Int(index) * Self.bufferSize
    }
}
