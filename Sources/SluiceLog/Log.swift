#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line per event on stderr, as text (`2025-01-31T12:00:00.123Z info  signaling: text`)
/// or as one JSON object (`log.format: "json"`, LogLine.swift). Messages are built only when
/// their level is enabled. The ids a line is about go in `fields`, typed at the call.
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

        /// Padded to five, so text lines align.
        var label: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info "
            case .warn: return "warn "
            case .error: return "error"
            }
        }

        public var name: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warn: return "warn"
            case .error: return "error"
            }
        }
    }

    public let level: Level
    public let subsystem: String
    public let format: LogFormat
    /// Fields every line of this log carries (a cluster node's `node`).
    public let baseFields: [LogField]
    private let sink: (@Sendable (String) -> Void)?

    /// `sink` replaces stderr (tests capture lines with it).
    public init(level: Level = .info, subsystem: String = "signaling", format: LogFormat = .text,
                fields: [LogField] = [], sink: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.subsystem = subsystem
        self.format = format
        self.baseFields = fields
        self.sink = sink
    }

    /// The same level, format, fields and sink, for another component.
    public func component(_ name: String) -> Log {
        Log(level: level, subsystem: name, format: format, fields: baseFields, sink: sink)
    }

    public func isEnabled(_ messageLevel: Level) -> Bool { messageLevel >= level }

    public func debug(_ message: @autoclosure () -> String, _ fields: [LogField] = []) { emit(.debug, message, fields) }
    public func info(_ message: @autoclosure () -> String, _ fields: [LogField] = []) { emit(.info, message, fields) }
    public func warn(_ message: @autoclosure () -> String, _ fields: [LogField] = []) { emit(.warn, message, fields) }
    public func error(_ message: @autoclosure () -> String, _ fields: [LogField] = []) { emit(.error, message, fields) }

    private func emit(_ messageLevel: Level, _ message: () -> String, _ fields: [LogField]) {
        guard isEnabled(messageLevel) else { return }
        let entry = LogLine(time: Log.timestamp(), level: messageLevel, component: subsystem, message: message(),
                            fields: fields + baseFields)
        let line = format == .json ? entry.json : entry.text
        if let sink {
            sink(line)
        } else {
            // Straight to fd 2 in one write, so that threads' lines never interleave. Swift 6
            // sees C's `stderr` as a mutable global.
            var bytes = Array(line.utf8)
            bytes.append(0x0A)
            _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }

    static func timestamp() -> String {
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
