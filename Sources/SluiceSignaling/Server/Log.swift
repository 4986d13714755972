#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line per event on stderr: `2025-01-31T12:00:00.123Z info  signaling: text`.
/// Messages are built only when their level is enabled.
public final class Log: Sendable {
    public enum Level: Int, Comparable, Sendable {
        case debug, info, warn, error

        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warn", "warning": self = .warn
            case "error": self = .error
            default: return nil
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        var label: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info "
            case .warn: return "warn "
            case .error: return "error"
            }
        }
    }

    public let level: Level
    public let subsystem: String
    private let sink: (@Sendable (String) -> Void)?

    /// `sink` replaces stderr (tests capture lines with it).
    public init(level: Level = .info, subsystem: String = "signaling", sink: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.subsystem = subsystem
        self.sink = sink
    }

    public func isEnabled(_ messageLevel: Level) -> Bool { messageLevel >= level }

    public func debug(_ message: @autoclosure () -> String) { emit(.debug, message) }
    public func info(_ message: @autoclosure () -> String) { emit(.info, message) }
    public func warn(_ message: @autoclosure () -> String) { emit(.warn, message) }
    public func error(_ message: @autoclosure () -> String) { emit(.error, message) }

    private func emit(_ messageLevel: Level, _ message: () -> String) {
        guard isEnabled(messageLevel) else { return }
        let line = "\(Log.timestamp()) \(messageLevel.label) \(subsystem): \(message())"
        if let sink {
            sink(line)
        } else {
            // Straight to fd 2: Swift 6 sees C's `stderr` as a mutable global.
            _ = (line + "\n").withCString { write(2, $0, strlen($0)) }
        }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + "\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
