import Foundation
import Synchronization
@testable import SluiceTransport

/// Parses hex with optional whitespace, as RFC listings print it.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { $0.isHexDigit }
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        result.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return result
}

func string(_ bytes: UnsafeRawBufferPointer?) -> String? {
    bytes.map { String(decoding: $0, as: UTF8.self) }
}

/// Waits for a condition with a generous bound; the test asserts on the outcome, never on time.
func eventually(_ condition: () -> Bool) -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// Runs `body` on the worker's thread and waits for it.
func onWorker<T>(_ worker: MediaWorker, _ body: @escaping () throws -> T) throws -> T {
    let result = Mutex<Result<T, Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    worker.execute {
        let value = Result { try body() }
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
