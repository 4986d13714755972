/// A fixed ring of per-packet records (a power of two of them), written on the packet path
/// through a plain pointer.
///
/// Why not an Array: each write to an Array checks that its buffer is unique and each read
/// checks the index against its count, and both read the buffer's header, a cache line apart
/// from the record. At 200 players a player's records are cold between its packets, so that
/// was a cache miss per ring per packet (`perf`: `swift_isUniquelyReferenced` 2.5% of the
/// server's cycles, under `Consumer.deliver`). Here the index is masked, so it needs no check.
///
/// Copies share the records (the storage is a reference): each ring has one owner that
/// writes it, and a copy is only read.
struct PacketRecordRing<Record> {
    private final class Storage {
        let base: UnsafeMutablePointer<Record>
        let count: Int
        init(count: Int, repeating record: Record) {
            self.count = count
            base = .allocate(capacity: count)
            base.initialize(repeating: record, count: count)
        }
        deinit {
            base.deinitialize(count: count)
            base.deallocate()
        }
    }

    private let storage: Storage
    /// `storage.base`, kept here so that the packet path does not read the storage object.
    private let base: UnsafeMutablePointer<Record>
    /// count - 1; -1 when the ring is empty.
    let mask: Int

    /// `count`: 0 or a power of two.
    init(count: Int, repeating record: Record) {
        precondition(count == 0 || count & (count - 1) == 0, "a ring's size is a power of two")
        storage = Storage(count: count, repeating: record)
        base = storage.base
        mask = count - 1
    }

    var isEmpty: Bool { mask < 0 }

    /// The record at `index` modulo the ring's size. The ring must not be empty.
    @inline(__always)
    subscript(index: Int) -> Record {
        get { base[index & mask] }
        nonmutating set { base[index & mask] = newValue }
    }
}
