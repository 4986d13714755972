public enum StreamEventValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    /// Written with its keys sorted.
    case object([String: StreamEventValue])
}
