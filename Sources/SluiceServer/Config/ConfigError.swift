/// A config problem, naming the key (as a dotted path) and what is wrong with it.
public struct ConfigError: Error, CustomStringConvertible, Equatable {
    public var key: String
    public var problem: String

    public init(key: String, problem: String) {
        self.key = key
        self.problem = problem
    }

    public var description: String {
        key.isEmpty ? "config: \(problem)" : "config: '\(key)' \(problem)"
    }
}
