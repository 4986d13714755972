/// One metric family of the Prometheus text exposition format 0.0.4: its HELP and TYPE
/// lines and every sample, which the format wants kept together.
public struct PrometheusMetricFamily: Sendable {
    public enum Kind: String, Sendable {
        case counter
        case gauge
    }

    public enum Value: Sendable, Equatable {
        case integer(Int64)
        case unsigned(UInt64)
        case double(Double)
    }

    public struct Sample: Sendable {
        public var labels: [(name: String, value: String)]
        public var value: Value
    }

    /// A counter's name ends in `_total`, as the samples are named the same.
    public let name: String
    public let help: String
    public let kind: Kind
    public private(set) var samples: [Sample] = []

    public init(name: String, help: String, kind: Kind) {
        self.name = name
        self.help = help
        self.kind = kind
    }

    public mutating func add(_ value: Value, labels: [(name: String, value: String)] = []) {
        samples.append(Sample(labels: labels, value: value))
    }

    public mutating func add(_ value: UInt64, labels: [(name: String, value: String)] = []) {
        add(.unsigned(value), labels: labels)
    }

    public mutating func add(_ value: Int, labels: [(name: String, value: String)] = []) {
        add(.integer(Int64(value)), labels: labels)
    }

    public mutating func add(_ value: Double, labels: [(name: String, value: String)] = []) {
        add(.double(value), labels: labels)
    }
}

/// Renders metric families as `text/plain; version=0.0.4`.
public enum PrometheusText {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Families with no sample still get their HELP and TYPE lines, so a scraper always
    /// sees the same set of names.
    public static func render(_ families: [PrometheusMetricFamily]) -> String {
        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            text += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for sample in family.samples {
                text += family.name
                if !sample.labels.isEmpty {
                    text += "{"
                    text += sample.labels.map { "\($0.name)=\"\(escapeLabelValue($0.value))\"" }.joined(separator: ",")
                    text += "}"
                }
                text += " " + format(sample.value) + "\n"
            }
        }
        return text
    }

    /// Backslash, double quote and line feed are the three characters the format escapes
    /// in a label value.
    public static func escapeLabelValue(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// HELP text escapes backslash and line feed only.
    public static func escapeHelp(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Go's float syntax, which Prometheus parses: `+Inf`, `-Inf` and `NaN` by name.
    public static func format(_ value: PrometheusMetricFamily.Value) -> String {
        switch value {
        case .integer(let number): return String(number)
        case .unsigned(let number): return String(number)
        case .double(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number > 0 ? "+Inf" : "-Inf" }
            if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
            return "\(number)"
        }
    }
}
