/// One m-section: the m= line and everything up to the next one.
public struct MediaDescription: Sendable, Hashable {
    public var kind: SDPMediaType
    /// 0 means rejected, or bundle-only when the mid is in the BUNDLE group.
    public var port: Int
    public var portCount: Int?
    public var proto: String
    /// The m= line's format list as written: payload type numbers for RTP, e.g. `webrtc-datachannel` for SCTP.
    public var formats: [String]
    public var connection: ConnectionData?
    public var bandwidths: [Bandwidth]
    public var mid: String?
    public var direction: MediaDirection?
    public var rtcp: String?
    public var rtcpMux: Bool
    public var rtcpRsize: Bool
    public var bundleOnly: Bool
    public var iceUfrag: String?
    public var icePwd: String?
    public var iceOptions: [String]
    public var fingerprints: [Fingerprint]
    public var setup: DTLSSetup?
    /// a=candidate values (everything after `candidate:`), unparsed.
    public var candidates: [String]
    public var endOfCandidates: Bool
    /// rtpmap codecs in m= line order, each with its fmtp and rtcp-fb.
    public var codecs: [CodecDescription]
    public var extensionMaps: [ExtensionMap]
    public var msids: [MediaStreamID]
    public var ssrcs: [SSRCDescription]
    public var ssrcGroups: [SSRCGroup]
    public var rids: [RIDDescription]
    public var simulcast: SimulcastDescription?
    public var sctpPort: Int?
    public var maxMessageSize: Int?
    public var otherAttributes: [SDPAttribute]

    public init(kind: SDPMediaType, port: Int = 9, portCount: Int? = nil, proto: String = "UDP/TLS/RTP/SAVPF",
                formats: [String] = [], connection: ConnectionData? = nil, bandwidths: [Bandwidth] = [],
                mid: String? = nil, direction: MediaDirection? = nil, rtcp: String? = nil,
                rtcpMux: Bool = false, rtcpRsize: Bool = false, bundleOnly: Bool = false,
                iceUfrag: String? = nil, icePwd: String? = nil, iceOptions: [String] = [],
                fingerprints: [Fingerprint] = [], setup: DTLSSetup? = nil, candidates: [String] = [],
                endOfCandidates: Bool = false, codecs: [CodecDescription] = [],
                extensionMaps: [ExtensionMap] = [], msids: [MediaStreamID] = [],
                ssrcs: [SSRCDescription] = [], ssrcGroups: [SSRCGroup] = [], rids: [RIDDescription] = [],
                simulcast: SimulcastDescription? = nil, sctpPort: Int? = nil, maxMessageSize: Int? = nil,
                otherAttributes: [SDPAttribute] = []) {
        self.kind = kind
        self.port = port
        self.portCount = portCount
        self.proto = proto
        self.formats = formats
        self.connection = connection
        self.bandwidths = bandwidths
        self.mid = mid
        self.direction = direction
        self.rtcp = rtcp
        self.rtcpMux = rtcpMux
        self.rtcpRsize = rtcpRsize
        self.bundleOnly = bundleOnly
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.iceOptions = iceOptions
        self.fingerprints = fingerprints
        self.setup = setup
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
        self.codecs = codecs
        self.extensionMaps = extensionMaps
        self.msids = msids
        self.ssrcs = ssrcs
        self.ssrcGroups = ssrcGroups
        self.rids = rids
        self.simulcast = simulcast
        self.sctpPort = sctpPort
        self.maxMessageSize = maxMessageSize
        self.otherAttributes = otherAttributes
    }

    /// RTP payload type numbers of the m= line (formats that are numbers).
    public var payloadTypes: [Int] { formats.compactMap { Int($0) } }

    public var isRTP: Bool { proto.uppercased().contains("RTP/") }

    public func codec(payloadType: Int) -> CodecDescription? {
        codecs.first { $0.payloadType == payloadType }
    }

    /// The RTX SSRC paired with `ssrc` by an a=ssrc-group:FID line.
    public func rtxSSRC(for ssrc: UInt32) -> UInt32? {
        for group in ssrcGroups where group.semantics.uppercased() == "FID" && group.ssrcs.count >= 2 {
            if group.ssrcs[0] == ssrc { return group.ssrcs[1] }
        }
        return nil
    }
}
