import SluiceMedia

/// An app's start bitrate for its publishers (`apps[].startBitrate` in the config): the
/// `x-google-start-bitrate` the answer carries in the video codec's a=fmtp.
///
/// libwebrtc starts every call's bandwidth estimate, and so its encoder, at 300 kbit/s; a
/// single-layer 1280x720 publisher then sends 320 px wide and climbs one step every 4 s (1280
/// only after about 17 s), however fast its uplink. Told a start bitrate, it starts there.
public struct StartBitrate: Sendable, Equatable {
    /// Off writes nothing: the answer is exactly as without this setting.
    public var enabled: Bool
    /// For a publisher that declared no video bitrate; nil: nothing is written for it.
    public var defaultKbps: Int?

    /// On, with no default: only a publisher's own declared bitrate is written. A declared
    /// bitrate is what the publisher said it will send, so starting there costs the network
    /// nothing it did not ask for; a default would guess the uplink of publishers who said nothing.
    public static let standard = StartBitrate(enabled: true, defaultKbps: nil)

    public init(enabled: Bool, defaultKbps: Int? = nil) {
        self.enabled = enabled
        self.defaultKbps = defaultKbps
    }

    /// The start bitrate for a publish, in kbit/s, or nil for none.
    /// - declared: the publish constraints as the client sent them (before the app's cap is
    ///   folded in, so that a cap alone is not taken for an intent): `video.bitrate`, else
    ///   `video.maxBitrate`, else `defaultKbps`.
    /// - limits: the app's `limits` tightened by the token's caps; `maxBitrateKbps` caps it, as
    ///   it caps the answer's `b=TIAS`.
    public func kbps(declared: StreamConstraints, limits: PublishLimits) -> Int? {
        guard enabled, let video = declared.video else { return nil }
        guard var kbps = video.bitrateKbps ?? video.maxBitrateKbps ?? defaultKbps, kbps > 0 else { return nil }
        if let cap = limits.maxBitrateKbps { kbps = min(kbps, cap) }
        // The pre-call test's measured uplink (not built yet) caps here too, as a third bound:
        // `kbps = min(kbps, measuredUplinkKbps)`, so that a publisher on a slow uplink starts
        // within what it can send instead of overshooting for the first seconds.
        return kbps
    }
}
