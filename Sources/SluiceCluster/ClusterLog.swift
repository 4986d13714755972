/// Where the cluster module writes its log lines: the server hands in its own logger, since
/// this module does not know SluiceSignaling's `Log`. Lines carry no prefix: the logger names
/// the subsystem (the server's says `cluster:`).
public struct ClusterLog: Sendable {
    public var info: @Sendable (String) -> Void
    public var warn: @Sendable (String) -> Void

    public init(info: @escaping @Sendable (String) -> Void, warn: @escaping @Sendable (String) -> Void) {
        self.info = info
        self.warn = warn
    }

    public static let silent = ClusterLog(info: { _ in }, warn: { _ in })
}
