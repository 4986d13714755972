/// What the engine tells the control plane, queued until the control thread drains it: a
/// reply to a request is sent before the notifications it causes (docs/protocol.md "Order"),
/// because the request returns before the control thread comes back to `MediaEngine.drainEvents`.
// @unchecked Sendable: `pending` is the control thread's alone; `wakeup` is set before start, then only read.
final class Outbox: @unchecked Sendable {
    /// Called from any thread when events are waiting; set by the control plane.
    var wakeup: @Sendable () -> Void = {}
    private var pending: [MediaEvent] = []

    /// Control thread.
    func post(_ event: MediaEvent) {
        pending.append(event)
        wakeup()
    }

    /// Any thread: something (an inbox) has work for the control thread.
    func wake() { wakeup() }

    /// Control thread: every event queued so far, in order; the queue is left empty.
    func takeAll() -> [MediaEvent] {
        let out = pending
        pending.removeAll()
        return out
    }

    var count: Int { pending.count }
}
