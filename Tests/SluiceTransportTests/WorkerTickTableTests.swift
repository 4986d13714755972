import Testing
@testable import SluiceTransport

private final class Item: WorkerTickable {
    var ticks = 0
    func tick(now: UInt64) { ticks += 1 }
}

/// Runs one worker turn over `table` as `MediaWorker.tickDue` does, with `due` as each ticked
/// item's next time.
private func turn(_ table: inout WorkerTickTable, now: UInt64, due: (Item) -> UInt64,
                  during: (inout WorkerTickTable, Item) -> Void = { _, _ in }) {
    var position = 0
    while position < table.count {
        if let item = table.dueItem(at: position, now: now) as? Item {
            item.tick(now: now)
            during(&table, item)
            table.setDue(due(item), for: item, at: position)
        }
        position += 1
    }
}

@Suite struct WorkerTickTableTests {
    @Test func anItemIsTickedOnlyWhenDueAndMadeDueBySoon() {
        var table = WorkerTickTable()
        let every = Item(), seldom = Item()
        table.add(every)
        table.add(seldom)
        for step in 0..<10 {
            let now = UInt64(step) * 10_000
            turn(&table, now: now) { $0 === seldom ? now + 100_000 : now + 10_000 }
        }
        #expect(every.ticks == 10)
        #expect(seldom.ticks == 1)
        table.makeDue(ObjectIdentifier(seldom))
        turn(&table, now: 100_000) { _ in 200_000 }
        #expect(seldom.ticks == 2)
    }

    @Test func removingDuringATurnKeepsTheOthersAndTheirTimes() {
        var table = WorkerTickTable()
        let items = (0..<5).map { _ in Item() }
        for item in items { table.add(item) }
        // The first item removes itself and the third: the last takes their places.
        turn(&table, now: 0, due: { _ in 50_000 }) { table, item in
            if item === items[0] {
                table.remove(ObjectIdentifier(items[0]))
                table.remove(ObjectIdentifier(items[2]))
            }
        }
        #expect(table.count == 3)
        // Whatever a moved entry missed this turn, it is due at the next one; no item is
        // ticked before its time.
        turn(&table, now: 10_000, due: { _ in 50_000 })
        turn(&table, now: 20_000, due: { _ in 50_000 })
        #expect(items[1].ticks == 1 && items[3].ticks == 1 && items[4].ticks == 1)
        turn(&table, now: 50_000, due: { _ in 100_000 })
        #expect(items[1].ticks == 2 && items[3].ticks == 2 && items[4].ticks == 2)
        #expect(items[2].ticks == 0)
    }

    @Test func addingTwiceKeepsOneEntry() {
        var table = WorkerTickTable()
        let item = Item()
        table.add(item)
        table.add(item)
        #expect(table.count == 1)
        table.remove(ObjectIdentifier(item))
        table.remove(ObjectIdentifier(item))
        #expect(table.count == 0)
    }
}
