/// A STUN or TURN server from `connect`'s `iceServers`, in the shape of WebRTC's
/// RTCIceServer: for Sluice, a TURN server with a short-lived credential (coturn's
/// shared-secret scheme). SluiceClient's own media stack does not relay through TURN; this is
/// for an app that hands the servers to another WebRTC stack.
public struct ICEServer: Sendable, Hashable {
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }

    /// Reads one entry; `urls` may be one string or an array of them (as in RTCIceServer).
    /// nil when it names no URL.
    public init?(_ value: JSONValue) {
        let urls: [String]
        if let one = value["urls"]?.stringValue {
            urls = [one]
        } else {
            urls = (value["urls"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        guard !urls.isEmpty else { return nil }
        self.init(urls: urls, username: value["username"]?.stringValue, credential: value["credential"]?.stringValue)
    }
}

extension ConnectResult {
    /// `iceServers` read as servers; entries without a URL are left out.
    public var servers: [ICEServer] { iceServers.compactMap(ICEServer.init) }
}
