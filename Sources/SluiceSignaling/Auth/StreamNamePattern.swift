/// One entry of a token's `publish` or `play` grant: an exact stream name, or a prefix that
/// ends in `*` (`"cam-*"`; `"*"` matches every name).
public struct StreamNamePattern: Sendable, Equatable, CustomStringConvertible {
    public let text: String

    public init(_ text: String) { self.text = text }

    public func matches(_ name: String) -> Bool {
        guard text.hasSuffix("*") else { return name == text }
        return name.hasPrefix(text.dropLast())
    }

    public var description: String { text }
}
