/// a=extmap (RFC 8285).
public struct ExtensionMap: Sendable, Hashable {
    public var id: Int
    public var direction: MediaDirection?
    public var uri: String
    public var attributes: String?

    public init(id: Int, direction: MediaDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }
}
