/// A session's allowance for data channel messages: two token buckets (messages and bytes)
/// that refill continuously and hold one second's worth. Pure; the stack's thread owns it.
struct SessionRateLimit {
    let messagesPerSecond: Int
    let bytesPerSecond: Int
    private var messages: Double
    private var bytes: Double
    private var lastMicros: UInt64
    /// When the last message was refused (nil: never), so a drop is told once per episode.
    private var lastDropMicros: UInt64?

    init(messagesPerSecond: Int, bytesPerSecond: Int, now: UInt64) {
        self.messagesPerSecond = messagesPerSecond
        self.bytesPerSecond = bytesPerSecond
        messages = Double(messagesPerSecond)
        bytes = Double(bytesPerSecond)
        lastMicros = now
    }

    enum Verdict: Equatable {
        case admitted
        /// `newEpisode`: no drop in the second before this one (the sender is told then).
        case dropped(newEpisode: Bool)
    }

    /// Takes one message of `count` bytes if the buckets hold it. A message larger than a
    /// whole second's bytes passes only into a full bucket (which it then empties), so no
    /// size is refused forever.
    mutating func admit(count: Int, now: UInt64) -> Verdict {
        refill(now: now)
        let messageOK = messagesPerSecond <= 0 || messages >= 1
        let byteOK = bytesPerSecond <= 0 || bytes >= Double(min(count, bytesPerSecond))
        guard messageOK && byteOK else {
            let newEpisode = lastDropMicros.map { now &- $0 > 1_000_000 } ?? true
            lastDropMicros = now
            return .dropped(newEpisode: newEpisode)
        }
        if messagesPerSecond > 0 { messages -= 1 }
        if bytesPerSecond > 0 { bytes -= Double(count) }
        return .admitted
    }

    private mutating func refill(now: UInt64) {
        guard now > lastMicros else { return }
        let seconds = Double(now - lastMicros) / 1_000_000
        lastMicros = now
        if messagesPerSecond > 0 {
            messages = min(Double(messagesPerSecond), messages + seconds * Double(messagesPerSecond))
        }
        if bytesPerSecond > 0 {
            bytes = min(Double(bytesPerSecond), bytes + seconds * Double(bytesPerSecond))
        }
    }
}
