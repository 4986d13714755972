import Testing
@testable import SluiceMedia

/// The relay links' packet counts as /metrics reads them: the worker's total never goes down
/// when a link goes, and each live link has its own count.
struct LinkPacketLedgerTests {
    @Test func totalKeepsWhatRemovedLinksSent() {
        let ledger = LinkPacketLedger()
        let a = LinkPacketCounter(), b = LinkPacketCounter()
        ledger.register("link-a", a)
        ledger.register("link-b", b)
        for _ in 0..<5 { a.add() }
        for _ in 0..<3 { b.add() }
        var read = ledger.read()
        #expect(read.total == 8 && read.live == ["link-a": 5, "link-b": 3])
        ledger.retire("link-a")
        read = ledger.read()
        #expect(read.total == 8 && read.live == ["link-b": 3])
        b.add()
        ledger.retire("link-unknown")
        read = ledger.read()
        #expect(read.total == 9 && read.live == ["link-b": 4])
        ledger.retire("link-b")
        read = ledger.read()
        #expect(read.total == 9 && read.live.isEmpty)
    }
}
