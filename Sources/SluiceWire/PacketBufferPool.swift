/// Fixed-size packet buffers carved from one allocation, recycled through a free list.
/// A worker owns its pool, so there is no locking; taking and returning a buffer costs
/// no heap allocation (docs/design.md, hot-path rule 1).
public final class PacketBufferPool {
    /// Room for a full-MTU datagram plus SRTP/SRTCP trailers and header growth.
    public static let bufferSize = 2048

    public let capacity: Int
    private let storage: UnsafeMutableRawPointer
    private var free: UnsafeMutablePointer<Int32>
    private var freeCount: Int

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.bufferSize, alignment: 64)
        free = .allocate(capacity: capacity)
        for i in 0..<capacity { free[i] = Int32(capacity - 1 - i) }
        freeCount = capacity
    }

    deinit {
        storage.deallocate()
        free.deallocate()
    }

    public var available: Int { freeCount }

    /// A buffer index, or nil when the pool is exhausted (the caller drops the packet).
    @inline(__always)
    public func take() -> Int32? {
        guard freeCount > 0 else { return nil }
        freeCount -= 1
        return free[freeCount]
    }

    @inline(__always)
    public func give(_ index: Int32) {
        precondition(freeCount < capacity, "buffer returned twice")
        free[freeCount] = index
        freeCount += 1
    }

    @inline(__always)
    public func pointer(_ index: Int32) -> UnsafeMutableRawPointer {
        storage + Int(index) * Self.bufferSize
    }
}
