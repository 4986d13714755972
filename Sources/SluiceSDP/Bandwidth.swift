/// b= line, e.g. AS (kbit/s) or TIAS (bit/s).
public struct Bandwidth: Sendable, Hashable {
    public var type: String
    public var value: Int

    public init(type: String, value: Int) {
        self.type = type
        self.value = value
    }
}
