public struct MuteState: Sendable, Equatable {
    public var byPublisher = false
    public var byServer = false
    public var muted: Bool { byPublisher || byServer }

    public init(byPublisher: Bool = false, byServer: Bool = false) {
        self.byPublisher = byPublisher
        self.byServer = byServer
    }
}
