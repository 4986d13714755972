import Foundation
import Glibc

/// The live progress line on stderr: rewritten in place on a terminal, one line per sample
/// otherwise (a CI log).
public final class ProgressPrinter: @unchecked Sendable {
    private let isTerminal: Bool
    private let lock = NSLock()
    private var lineOpen = false
    private var lastLine = ""

    public init(isTerminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.isTerminal = isTerminal
    }

    public static func line(_ s: RunSample, expected: Int) -> String {
        var parts = [
            String(format: "[%5.1fs]", s.elapsedSeconds),
            "joined \(s.joinedPlayers)/\(expected)",
            String(format: "rx %.0f pkt/s", s.packetsPerSecond),
            "lost \(s.lost)",
            "delay p99 " + (s.delayP99Micros.map { Format.millis($0) } ?? "-"),
        ]
        if let cpu = s.serverCPUPercent { parts.append(String(format: "server cpu %.0f%%", cpu)) }
        if let rss = s.serverRSSBytes { parts.append("rss \(Format.bytes(rss))") }
        return parts.joined(separator: "  ")
    }

    func update(_ sample: RunSample, expected: Int) {
        write(Self.line(sample, expected: expected), final: false)
    }

    /// The last line again on a terminal (ending it); nothing new in a log that has it already.
    func finish(_ sample: RunSample, expected: Int) {
        let text = Self.line(sample, expected: expected)
        lock.lock()
        let repeated = !isTerminal && text == lastLine
        lock.unlock()
        if !repeated { write(text, final: true) }
    }

    /// A message on a line of its own.
    public func note(_ message: String) {
        lock.lock()
        defer { lock.unlock() }
        if lineOpen { fputs("\n", stderr) }
        lineOpen = false
        fputs("sluice-loadtest: \(message)\n", stderr)
    }

    private func write(_ text: String, final: Bool) {
        lock.lock()
        defer { lock.unlock() }
        lastLine = text
        if isTerminal {
            fputs("\r\u{1B}[K" + text + (final ? "\n" : ""), stderr)
            lineOpen = !final
        } else {
            fputs(text + "\n", stderr)
        }
    }
}

/// Number formats shared by the progress line, the summary and the report.
public enum Format {
    /// µs as milliseconds with 2 decimals ("1.25 ms").
    public static func millis(_ micros: UInt64) -> String {
        String(format: "%.2f ms", Double(micros) / 1000)
    }

    public static func bytes(_ value: Int64) -> String {
        let v = Double(value)
        let kib = 1024.0, mib = kib * 1024, gib = mib * 1024
        if v >= gib { return String(format: "%.1f GiB", v / gib) }
        if v >= mib { return String(format: "%.1f MiB", v / mib) }
        if v >= kib { return String(format: "%.1f KiB", v / kib) }
        return "\(value) B"
    }

    public static func percent(_ fraction: Double) -> String {
        String(format: "%.3f%%", fraction * 100)
    }
}
