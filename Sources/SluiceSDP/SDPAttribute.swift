/// An attribute Sluice does not interpret, kept so that nothing is silently lost.
public struct SDPAttribute: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}
