/// One log line, written as text or as one JSON object. Pure and allocation-happy: a log
/// line is never on the packet path.
public struct LogLine: Sendable {
    public var time: String
    public var level: Log.Level
    public var component: String
    public var message: String
    public var fields: [LogField]

    public init(time: String, level: Log.Level, component: String, message: String, fields: [LogField] = []) {
        self.time = time
        self.level = level
        self.component = component
        self.message = message
        self.fields = fields
    }

    /// `2025-01-31T12:00:00.123Z info  signaling: text`, as Sluice always wrote; a held-back
    /// count is said at the end.
    public var text: String {
        var line = "\(time) \(level.label) \(component): \(message)"
        for case .suppressed(let count) in fields where count > 0 {
            line += " (\(count) similar line(s) held back before this one)"
        }
        return line
    }

    /// `{"time":...,"level":"info","component":...,"message":...,"session":...}` on one line:
    /// every control character escaped, so a client's newline or quote cannot split or end it.
    /// Swift strings hold Unicode scalars only (bad UTF-8 became U+FFFD where the bytes were
    /// decoded), so the output is valid UTF-8. A field given twice is written once, the first.
    public var json: String {
        var out = "{\"time\":"
        Self.append(time, to: &out)
        out += ",\"level\":"
        Self.append(level.name, to: &out)
        out += ",\"component\":"
        Self.append(component, to: &out)
        out += ",\"message\":"
        Self.append(message, to: &out)
        var written: [String] = []
        for field in fields where !written.contains(field.key) {
            written.append(field.key)
            out += ",\"\(field.key)\":"
            switch field {
            case .connection(let number), .suppressed(let number):
                out += String(number)
            case .session(let text), .handle(let text), .stream(let text), .call(let text), .node(let text),
                 .peer(let text), .remote(let text), .app(let text):
                Self.append(text, to: &out)
            }
        }
        out += "}"
        return out
    }

    /// A JSON string (RFC 8259): quotes, backslashes and every control character escaped.
    static func append(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                // DEL and the line and paragraph separators too: some readers split lines on them.
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
