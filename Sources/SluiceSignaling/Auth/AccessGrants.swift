/// What a session may do: the grants of its access token, or everything for a session that
/// connected with an app key alone (docs/protocol.md section 6, "Access tokens").
public struct AccessGrants: Sendable, Equatable {
    /// nil: any name (an app-key session).
    public var publish: [StreamNamePattern]?
    public var play: [StreamNamePattern]?
    /// Publish caps of the token; the app's `limits` apply too, the lower of the two counts.
    public var caps: PublishLimits
    public var record: Bool
    public var admin: Bool

    public init(publish: [StreamNamePattern]?, play: [StreamNamePattern]?, caps: PublishLimits = PublishLimits(),
                record: Bool, admin: Bool) {
        self.publish = publish
        self.play = play
        self.caps = caps
        self.record = record
        self.admin = admin
    }

    /// An app-key session: every name, no caps of its own, recording allowed.
    public static let unrestricted = AccessGrants(publish: nil, play: nil, record: true, admin: false)

    public func allowsPublish(_ stream: String) -> Bool { Self.allows(publish, stream) }
    public func allowsPlay(_ stream: String) -> Bool { Self.allows(play, stream) }

    private static func allows(_ patterns: [StreamNamePattern]?, _ stream: String) -> Bool {
        guard let patterns else { return true }
        return patterns.contains { $0.matches(stream) }
    }
}
