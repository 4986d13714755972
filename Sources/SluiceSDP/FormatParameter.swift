/// One `name=value` (or bare `name`) item of a=fmtp or of a=rid restrictions, kept in order.
public struct FormatParameter: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == FormatParameter {
    /// The value of the first parameter named `name` (case-insensitive).
    public func value(of name: String) -> String? {
        first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The a=fmtp value text: `a=1;b=2`.
    public var formatted: String {
        map { p in p.value.map { "\(p.name)=\($0)" } ?? p.name }.joined(separator: ";")
    }
}
