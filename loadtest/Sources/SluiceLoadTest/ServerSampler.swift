import Foundation

/// Reads a server process's CPU time and RSS from /proc once per sample.
struct ServerSampler: Sendable {
    struct Reading: Sendable, Equatable {
        var cpuMicros: UInt64
        var rssBytes: Int64
    }

    let pid: Int32
    let ticksPerSecond = ProcessStat.ticksPerSecond
    let pageSize = ProcessStat.pageSize

    /// nil when the process is gone or its stat unreadable.
    func read() -> Reading? {
        guard let stat = try? ProcessStat.read(pid: pid) else { return nil }
        return Reading(cpuMicros: stat.cpuMicros(ticksPerSecond: ticksPerSecond), rssBytes: stat.rssBytes(pageSize: pageSize))
    }
}
