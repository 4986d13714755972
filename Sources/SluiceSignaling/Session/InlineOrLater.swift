import Synchronization

/// The answer of a call that may reply before it returns (a local store, on the caller's
/// thread) or later from another thread (a store across the network). The caller takes an
/// inline answer at once and parks only for a later one; a later one goes to the service
/// thread. Each answer is taken once.
public final class InlineOrLater<Value: Sendable>: Sendable {
    private enum State: Sendable {
        case calling
        case inline(Value)
        case later
    }
    private let state = Mutex(State.calling)

    public init() {}

    /// From the reply: true when it came inside the call (the caller takes it from `returned`).
    public func answeredInline(_ value: Value) -> Bool {
        state.withLock { state in
            guard case .calling = state else { return false }
            state = .inline(value)
            return true
        }
    }

    /// Right after the call returned: the inline answer, or nil (a later one is to come).
    public func returned() -> Value? {
        state.withLock { state in
            if case .inline(let value) = state { return value }
            state = .later
            return nil
        }
    }
}
