import SluiceVocabulary

/// Everything the control plane (SluiceControl `Negotiation`) needs from an offer/answer exchange.
public struct NegotiatedSession: Sendable, Hashable {
    public var role: StreamRole
    public var remoteICEUfrag: String
    public var remoteICEPwd: String
    public var remoteFingerprint: Fingerprint
    public var dtlsRole: DTLSRole
    /// The answer's BUNDLE group: every accepted mid, offer order.
    public var bundleMids: [String]
    public var audio: NegotiatedMedia?
    public var video: NegotiatedMedia?
    public var dataChannel: NegotiatedDataChannel?
    /// Mids of m-lines answered with port 0.
    public var rejectedMids: [String]

    public init(role: StreamRole, remoteICEUfrag: String, remoteICEPwd: String, remoteFingerprint: Fingerprint,
                dtlsRole: DTLSRole, bundleMids: [String], audio: NegotiatedMedia? = nil,
                video: NegotiatedMedia? = nil, dataChannel: NegotiatedDataChannel? = nil, rejectedMids: [String] = []) {
        self.role = role
        self.remoteICEUfrag = remoteICEUfrag
        self.remoteICEPwd = remoteICEPwd
        self.remoteFingerprint = remoteFingerprint
        self.dtlsRole = dtlsRole
        self.bundleMids = bundleMids
        self.audio = audio
        self.video = video
        self.dataChannel = dataChannel
        self.rejectedMids = rejectedMids
    }
}
