import Synchronization

/// A worker's TCP media connections: a fixed table of slots (a path names its connection by
/// slot and serial, so a send finds it by index), the connections to write at the end of the
/// loop turn, and the counters /metrics shows. Its arrays are sized once, so adding to them
/// never allocates. Worker thread only, except the atomics.
final class TCPConnectionTable {
    let options: TCPMediaOptions
    private(set) var slots: [TCPMediaConnection?]
    private var freeSlots: [Int32]
    private var nextSerial: UInt32 = 1
    /// Slots with queued bytes, each once, written by `MediaWorker.flushTCP`.
    var flushList: [Int32]
    var openCount: Int { slots.count - freeSlots.count }

    /// Packets queued on connections since the counters were last published.
    var packetsQueuedSinceFlush: UInt64 = 0

    // For /metrics (read racily from the control thread).
    let open = Atomic<Int>(0)
    let accepted = Atomic<UInt64>(0)
    /// Accepted over `maxConnections` (or with no free descriptor) and closed at once.
    let refused = Atomic<UInt64>(0)
    /// Closed for bad input: an oversize frame, data before ICE, or no ICE check in time.
    let closedForBadInput = Atomic<UInt64>(0)
    let framesReceived = Atomic<UInt64>(0)
    let framesSent = Atomic<UInt64>(0)
    /// Packets dropped because a connection's send queue was full (a slow reader).
    let sendDropped = Atomic<UInt64>(0)

    init(options: TCPMediaOptions) {
        self.options = options
        let count = max(1, options.maxConnections)
        slots = [TCPMediaConnection?](repeating: nil, count: count)
        freeSlots = (0..<Int32(count)).reversed().map { $0 }
        flushList = []
        flushList.reserveCapacity(count)
    }

    /// Takes a free slot for a new connection; nil when the table is full.
    func insert(_ make: (_ slot: Int32, _ serial: UInt32) -> TCPMediaConnection) -> TCPMediaConnection? {
        guard let slot = freeSlots.popLast() else { return nil }
        let serial = nextSerial
        nextSerial = nextSerial == UInt32.max ? 1 : nextSerial + 1
        let connection = make(slot, serial)
        slots[Int(slot)] = connection
        open.store(openCount, ordering: .relaxed)
        return connection
    }

    func remove(_ connection: TCPMediaConnection) {
        let slot = Int(connection.path.local)
        guard slots[slot] === connection else { return }
        slots[slot] = nil
        freeSlots.append(Int32(slot))
        open.store(openCount, ordering: .relaxed)
    }

    /// The open connection a path names, if it is still the same one.
    @inline(__always)
    func connection(for path: MediaPath) -> TCPMediaConnection? {
        let slot = Int(path.local)
        guard path.kind == .tcp, slot >= 0, slot < slots.count, let connection = slots[slot],
              connection.path.serial == path.serial, !connection.isClosed else { return nil }
        return connection
    }

    /// Open connections, for scans at control rate (timeouts, unregistering a transport).
    var connections: [TCPMediaConnection] { slots.compactMap { $0 } }
}
