// a=simulcast: the description and the rid items of its lists (two small value types).

/// a=simulcast (RFC 8853): per direction a list of streams, each with its alternatives.
public struct SimulcastDescription: Sendable, Hashable {
    public var send: [[SimulcastRID]]
    public var recv: [[SimulcastRID]]

    public init(send: [[SimulcastRID]] = [], recv: [[SimulcastRID]] = []) {
        self.send = send
        self.recv = recv
    }
}

/// One rid in an a=simulcast list; `~` marks it paused.
public struct SimulcastRID: Sendable, Hashable {
    public var id: String
    public var paused: Bool

    public init(id: String, paused: Bool = false) {
        self.id = id
        self.paused = paused
    }
}
