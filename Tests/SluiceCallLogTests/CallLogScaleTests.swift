import Foundation
import SluiceCallLog
import SluiceCalls
import Testing

/// The SQLite call log at 100,000 calls: a user's first page and the admin's must stay an
/// index walk (`CallLogScale`). Printed as `CALL_LOG_FIGURES`.
@Suite struct CallLogScaleTests {
    @Test func aHundredThousandCalls() throws {
        let path = scratchFile()
        let log = try CallLogDatabase(path: path)
        defer { log.close() }
        let figures = try CallLogScale.measure(log, name: "sqlite", runs: 50)
        print("CALL_LOG_FIGURES \(figures)")
    }
}
