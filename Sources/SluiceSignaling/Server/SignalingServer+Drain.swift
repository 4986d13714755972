import SluiceWire

/// The drain for a restart, as the signaling server runs it: other threads ask (`drain`), the
/// service thread tells the sessions and watches for the last one to end or the deadline to
/// pass, and other threads read the outcome (`isDrained`) to stop the process.
extension SignalingServer {
    /// From any thread: begins a drain that lasts at most `seconds`. `servers`: where else
    /// clients may go (other nodes' signaling URLs). False when a drain had already begun.
    @discardableResult
    public func drain(seconds: Int, servers: [String] = []) -> Bool {
        let deadline = MonotonicClock.nowMicros() + UInt64(max(0, seconds)) * 1_000_000
        guard control.requestDrain(deadlineMicros: deadline, servers: servers) else { return false }
        wake()
        return true
    }

    /// From any thread: true once a drain has begun.
    public var isDraining: Bool { control.flags.drain != nil }

    /// From any thread: true once the drain's last session ended or its deadline passed; the
    /// process may then shut down (which closes what is left).
    public var isDrained: Bool { control.flags.drained }

    /// Service thread, each wake (the call timer wakes it four times a second).
    func drainStep(_ flags: ShutdownControl.Flags) {
        guard let drain = flags.drain, !flags.drained else { return }
        let now = MonotonicClock.nowMicros()
        if !drainBegun {
            drainBegun = true
            sessions.beginDrain(deadlineMicros: drain.deadlineMicros, servers: drain.servers)
            let seconds = drain.deadlineMicros > now ? (drain.deadlineMicros - now + 500_000) / 1_000_000 : 0
            log.info("draining: \(sessions.connectedSessionCount) session(s) may go on for up to \(seconds) s; "
                     + "new ones are refused (1017)")
        }
        let left = sessions.connectedSessionCount
        if left == 0 {
            log.info("drained: the last session ended")
            control.markDrained()
        } else if now >= drain.deadlineMicros {
            log.info("drain deadline: closing the \(left) session(s) left")
            control.markDrained()
        }
    }
}
