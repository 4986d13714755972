/// An SDP (RFC 8866) as Sluice understands it: the session level plus its m-sections.
///
/// Parse with `init(parsing:)`, write with `serialized()`. Attributes Sluice does not
/// interpret are kept in `otherAttributes`; other line types (i=, u=, e=, k=, z=, r=) are dropped.
public struct SessionDescription: Sendable, Hashable {
    public var origin: Origin
    public var sessionName: String
    public var connection: ConnectionData?
    public var bandwidths: [Bandwidth]
    public var groups: [MediaGroup]
    public var msidSemantic: MsidSemantic?
    public var iceLite: Bool
    public var iceUfrag: String?
    public var icePwd: String?
    public var iceOptions: [String]
    public var fingerprints: [Fingerprint]
    public var setup: DTLSSetup?
    /// A session-level direction, the default for m-sections that state none.
    public var direction: MediaDirection?
    public var extmapAllowMixed: Bool
    public var extensionMaps: [ExtensionMap]
    public var otherAttributes: [SDPAttribute]
    public var media: [MediaDescription]

    public init(origin: Origin = Origin(), sessionName: String = "-", connection: ConnectionData? = nil,
                bandwidths: [Bandwidth] = [], groups: [MediaGroup] = [], msidSemantic: MsidSemantic? = nil,
                iceLite: Bool = false, iceUfrag: String? = nil, icePwd: String? = nil,
                iceOptions: [String] = [], fingerprints: [Fingerprint] = [], setup: DTLSSetup? = nil,
                direction: MediaDirection? = nil, extmapAllowMixed: Bool = false,
                extensionMaps: [ExtensionMap] = [], otherAttributes: [SDPAttribute] = [],
                media: [MediaDescription] = []) {
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.bandwidths = bandwidths
        self.groups = groups
        self.msidSemantic = msidSemantic
        self.iceLite = iceLite
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.iceOptions = iceOptions
        self.fingerprints = fingerprints
        self.setup = setup
        self.direction = direction
        self.extmapAllowMixed = extmapAllowMixed
        self.extensionMaps = extensionMaps
        self.otherAttributes = otherAttributes
        self.media = media
    }

    /// The mids of the first a=group:BUNDLE, or empty.
    public var bundleMids: [String] {
        groups.first { $0.semantics.uppercased() == "BUNDLE" }?.mids ?? []
    }

    /// o= line.
    public struct Origin: Sendable, Hashable {
        public var username: String
        public var sessionID: String
        public var sessionVersion: String
        public var networkType: String
        public var addressType: String
        public var address: String

        public init(username: String = "-", sessionID: String = "0", sessionVersion: String = "2",
                    networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1") {
            self.username = username
            self.sessionID = sessionID
            self.sessionVersion = sessionVersion
            self.networkType = networkType
            self.addressType = addressType
            self.address = address
        }
    }
}
