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

    /// jemalloc's version when the process runs on it (the `sluice` executable), else nil.
    private let jemallocVersion = sluice_jemalloc_version().map { String(cString: $0) }

    /// What it does, for the startup log.
    func start() -> String {
        if let version = jemallocVersion {
            let started = sluice_jemalloc_background_purge() == 0
            return "jemalloc \(version), "
                + (started ? "background purge on" : "background purge unavailable: pages return on allocation only")
        }
        let doing = "glibc malloc, trimmed every \(Self.periodSeconds) s"
        guard timer == nil else { return doing }
        sluice_malloc_tune(Self.mmapThreshold)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "sluice-memory-trim", qos: .utility))
        let period = DispatchTimeInterval.seconds(Self.periodSeconds)
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .seconds(5))
        timer.setEventHandler { _ = sluice_malloc_trim() }
        timer.resume()
        self.timer = timer
        return doing
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}
