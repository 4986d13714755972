/// a=fingerprint: hash function name and colon-separated hex value.
public struct Fingerprint: Sendable, Hashable {
    public var algorithm: String
    public var value: String

    public init(algorithm: String, value: String) {
        self.algorithm = algorithm
        self.value = value
    }
}
