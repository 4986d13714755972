import CShims
import Dispatch

/// Gives the allocator's free pages back to the system, so RSS comes back after churn
/// (issue 33; docs/design.md, "Memory under churn").
///
/// The `sluice` executable links jemalloc, which returns freed pages on its own after a decay
/// time; here its background threads are started, so that happens even while the server is
/// idle. In a process on glibc's malloc (the tests' in-process servers), glibc keeps the pages
/// of freed chunks in each thread's arena, so they are trimmed twice a minute instead
/// (`malloc_trim`); that costs a few milliseconds on a utility thread, and no media thread
/// allocates per packet, so none waits on an arena's lock meanwhile.
final class MemoryTrim {
    static let periodSeconds = 30
    private var timer: DispatchSourceTimer?

    /// On glibc: allocations of this size or more (a player's send history, buffers of DTLS
    /// and of the retransmission maps) get pages of their own, returned when freed, rather
    /// than a hole in an arena.
    static let mmapThreshold: Int32 = 32 * 1024

    /// "jemalloc <version>" or "glibc malloc", for the startup log.
    let allocator: String = sluice_jemalloc_version().map { "jemalloc \(String(cString: $0))" } ?? "glibc malloc"

    /// What it does, for the startup log.
    func start() -> String {
        if sluice_jemalloc_version() != nil {
            let started = sluice_jemalloc_background_purge() == 0
            return "\(allocator), " + (started ? "background purge on" : "background purge unavailable: pages return on allocation only")
        }
        guard timer == nil else { return "\(allocator), trimmed every \(Self.periodSeconds) s" }
        sluice_malloc_tune(Self.mmapThreshold)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "sluice-memory-trim", qos: .utility))
        let period = DispatchTimeInterval.seconds(Self.periodSeconds)
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .seconds(5))
        timer.setEventHandler { _ = sluice_malloc_trim() }
        timer.resume()
        self.timer = timer
        return "\(allocator), trimmed every \(Self.periodSeconds) s"
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}
