import Foundation

extension NSLock {
    /// `body` under the lock. Foundation's `withLock` needs recent Apple SDKs; this does not,
    /// and it may be called from async code (the lock is never held across a suspension).
    @inline(__always)
    func critical<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
