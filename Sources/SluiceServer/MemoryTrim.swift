import CShims
import Dispatch

/// Hands the allocator's free pages back to the system twice a minute (`malloc_trim`). The
/// server's heap is flat under churn (every table goes back to its size, and heaptrack shows
/// the same live bytes after 400 joins as after 1,100), but glibc keeps the pages of freed
/// chunks in each thread's arena, so RSS crept by a fraction of a KiB per join for minutes
/// before it settled (issue 33). Trimming costs a few milliseconds on a utility thread; no
/// media thread allocates per packet, so none waits on an arena's lock meanwhile.
final class MemoryTrim {
    static let periodSeconds = 30
    private var timer: DispatchSourceTimer?

    /// Allocations of this size or more (a player's send history, buffers of DTLS and of the
    /// retransmission maps) get pages of their own, returned when freed, rather than a hole in
    /// an arena.
    static let mmapThreshold: Int32 = 32 * 1024

    func start() {
        guard timer == nil else { return }
        sluice_malloc_tune(Self.mmapThreshold)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "sluice-memory-trim", qos: .utility))
        let period = DispatchTimeInterval.seconds(Self.periodSeconds)
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .seconds(5))
        timer.setEventHandler { _ = sluice_malloc_trim() }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}
