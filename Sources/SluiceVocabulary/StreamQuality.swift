/// The `quality` of a play constraint (docs/protocol.md "Constraints"): which simulcast layer
/// a player prefers. The raw value is the protocol's word.
public enum StreamQuality: String, Sendable, Hashable, Codable, CaseIterable {
    case auto, high, medium, low

    /// From the protocol's word, any case; nil for another.
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }

    /// A WCS quality number (1 to 100): 67 and over is high, 34 and over medium, below low.
    public init(level: Int) {
        self = level >= 67 ? .high : level >= 34 ? .medium : .low
    }
}
