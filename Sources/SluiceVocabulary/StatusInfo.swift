/// Exact WCS-compatible `info` strings of `streamStatus` (docs/protocol.md section 1): the
/// server's control plane, its WHIP/WHEP resources and the client SDK spell them from here, so
/// an app reads one vocabulary whichever side named the cause.
public enum StatusInfo {
    public static let streamNameInUse = "Stream name is already in use"
    public static let streamNotFound = "Stream not found"
    public static let noCommonCodecs = "No common codecs"
    public static let iceTimeout = "Failed by ICE timeout"
    public static let dtlsError = "Failed by DTLS error"
    public static let dtlsFingerprint = "Failed by DTLS fingerprint error"
    public static let rtpActivity = "Failed by RTP activity"
    public static let sessionDisconnect = "Stopped by session disconnect"
    public static let publisherStop = "Stopped by publisher stop"
    /// A relayed stream's origin node died (its heartbeat record expired): Sluice's own, for
    /// players on other nodes (docs/protocol.md section 6, **Cluster**).
    public static let originNodeLoss = "Stopped by origin node loss"
    public static let user = "Stopped by user"
    public static let restTerminate = "Stopped by rest /terminate"
    public static let restrictedAccess = "Restricted access"
    public static let constraintsExceedLimits = "Constraints exceed limits"
    /// A publisher stopped for staying over a cap: "Failed by limit maxWidth".
    public static func limitExceeded(_ limit: String) -> String { "Failed by limit \(limit)" }
}
