import Foundation

/// A value handed from another thread, waited for with a semaphore.
final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private let ready = DispatchSemaphore(value: 0)
    private var value: T?

    func set(_ newValue: T) {
        lock.lock()
        value = newValue
        lock.unlock()
        ready.signal()
    }

    func wait() -> T {
        ready.wait()
        lock.lock()
        defer { lock.unlock() }
        return value!
    }
}
