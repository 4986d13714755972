/// a=rid (RFC 8851).
public struct RIDDescription: Sendable, Hashable {
    public enum Direction: String, Sendable, Hashable { case send, recv }

    public var id: String
    public var direction: Direction
    /// Restrictions such as `pt=96,97` or `max-width=1280`, kept in order.
    public var restrictions: [FormatParameter]

    public init(id: String, direction: Direction, restrictions: [FormatParameter] = []) {
        self.id = id
        self.direction = direction
        self.restrictions = restrictions
    }
}
