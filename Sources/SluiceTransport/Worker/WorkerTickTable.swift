/// The worker's tickables, each with the time it next wants a tick.
///
/// Most of them want one only now and then: a connected transport checks consent a few times
/// a second, and a player that is not catching up or probing reports once a second. Calling
/// every one of them every 10 ms cost 5-7% of the server's time at 40 players (the call, a
/// side-table retain and release, and the cold cache lines of 80 objects, 100 times a
/// second); a turn now reads only this table and calls those that are due.
struct WorkerTickTable {
    private struct Entry {
        let item: WorkerTickable
        var due: UInt64
    }

    private var entries: ContiguousArray<Entry> = []
    private var positions: [ObjectIdentifier: Int] = [:]

    var count: Int { entries.count }

    /// Adds `item`, due at once; adding it again only makes it due.
    mutating func add(_ item: WorkerTickable) {
        let id = ObjectIdentifier(item)
        if let position = positions[id] {
            entries[position].due = 0
            return
        }
        positions[id] = entries.count
        entries.append(Entry(item: item, due: 0))
    }

    /// Removes the item with `id`. The last entry takes its place, so during a turn that entry
    /// may wait for the next turn.
    mutating func remove(_ id: ObjectIdentifier) {
        guard let position = positions.removeValue(forKey: id) else { return }
        let last = entries.count - 1
        if position != last {
            entries[position] = entries[last]
            positions[ObjectIdentifier(entries[position].item)] = position
        }
        entries.removeLast()
    }

    /// Makes the item with `id` due at the next turn.
    mutating func makeDue(_ id: ObjectIdentifier) {
        if let position = positions[id] { entries[position].due = 0 }
    }

    /// The item at `position` when it is due at `now`.
    func dueItem(at position: Int, now: UInt64) -> WorkerTickable? {
        entries[position].due <= now ? entries[position].item : nil
    }

    /// Records when `item`, found at `position` before its tick, wants its next one. Its tick
    /// may have added or removed items, which moves entries: then it is looked up again.
    mutating func setDue(_ due: UInt64, for item: WorkerTickable, at position: Int) {
        if position < entries.count, entries[position].item === item {
            entries[position].due = due
        } else if let moved = positions[ObjectIdentifier(item)] {
            entries[moved].due = due
        }
    }
}
