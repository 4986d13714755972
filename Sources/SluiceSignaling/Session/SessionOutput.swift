/// Where a session's outgoing messages go: a WebSocket connection, or a recorder in tests.
/// Calls come from the service thread, in the order the messages must reach the client.
public protocol SessionOutput: AnyObject {
    /// Queues one text frame.
    func send(text: String)
    /// Queues a close frame after everything sent so far; nothing is sent after it.
    func close(code: UInt16, reason: String)
}

/// WebSocket close codes Sluice uses.
public enum CloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let unknownAppKey: UInt16 = 4001
    public static let rateLimited: UInt16 = 4008
}
