import Foundation

/// What the load tester reads from `/proc/<pid>/stat` (proc(5)): CPU time in user and kernel
/// mode (clock ticks) and the resident set (pages).
public struct ProcessStat: Sendable, Equatable {
    public var pid: Int32
    public var command: String
    public var state: Character
    public var userTicks: UInt64
    public var systemTicks: UInt64
    public var rssPages: Int64

    /// Parses the one line of `/proc/<pid>/stat`. The command (field 2) is in parentheses and
    /// may hold spaces and parentheses itself, so the fields after it are counted from the
    /// last ')'.
    public init(parsing line: String) throws(ProcessStatError) {
        guard let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")"), open < close else {
            throw .malformed("no (command) field")
        }
        guard let pid = Int32(line[..<open].trimmingCharacters(in: .whitespaces)) else {
            throw .malformed("no pid before the command")
        }
        self.pid = pid
        command = String(line[line.index(after: open)..<close])
        // Fields 3 onwards: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
        // cmajflt utime(14) stime(15) cutime cstime priority nice num_threads itrealvalue
        // starttime vsize rss(24) ...
        let fields = line[line.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 22 else { throw .malformed("\(fields.count + 2) fields, expected at least 24") }
        func field(_ number: Int) -> Substring { fields[number - 3] }
        guard let state = field(3).first, field(3).count == 1 else { throw .malformed("state field '\(field(3))'") }
        self.state = state
        guard let utime = UInt64(field(14)), let stime = UInt64(field(15)) else {
            throw .malformed("utime/stime '\(field(14))' '\(field(15))'")
        }
        guard let rss = Int64(field(24)) else { throw .malformed("rss '\(field(24))'") }
        userTicks = utime
        systemTicks = stime
        rssPages = rss
    }

    /// Reads `/proc/<pid>/stat`.
    public static func read(pid: Int32) throws(ProcessStatError) -> ProcessStat {
        let path = "/proc/\(pid)/stat"
        guard let data = FileManager.default.contents(atPath: path), let line = String(data: data, encoding: .utf8) else {
            throw .unreadable(path)
        }
        return try ProcessStat(parsing: line)
    }

    /// User plus system CPU time in µs, at `ticksPerSecond` (sysconf(_SC_CLK_TCK)).
    public func cpuMicros(ticksPerSecond: Int) -> UInt64 {
        let ticks = userTicks + systemTicks
        let rate = UInt64(max(1, ticksPerSecond))
        return ticks / rate * 1_000_000 + ticks % rate * 1_000_000 / rate
    }

    public func rssBytes(pageSize: Int) -> Int64 { rssPages * Int64(pageSize) }

    /// sysconf(_SC_CLK_TCK), usually 100.
    public static var ticksPerSecond: Int { max(1, sysconf(Int32(_SC_CLK_TCK))) }
    public static var pageSize: Int { max(1, sysconf(Int32(_SC_PAGESIZE))) }
}

public enum ProcessStatError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case malformed(String)

    public var description: String {
        switch self {
        case .unreadable(let path): return "cannot read \(path) (is the process running?)"
        case .malformed(let what): return "unexpected /proc stat line: \(what)"
        }
    }
}
