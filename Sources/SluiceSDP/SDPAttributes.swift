// Small value types shared by the session and media levels of a SessionDescription.

/// Media direction from the offerer's or answerer's point of view (RFC 8866 6.7).
public enum MediaDirection: String, Sendable, Hashable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// The direction the other side states for the same stream.
    public var reversed: MediaDirection {
        switch self {
        case .sendonly: return .recvonly
        case .recvonly: return .sendonly
        case .sendrecv, .inactive: return self
        }
    }

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}

/// a=setup (RFC 4145 and RFC 8842).
public enum DTLSSetup: String, Sendable, Hashable, CaseIterable {
    case actpass, active, passive, holdconn
}

/// a=fingerprint: hash function name and colon-separated hex value.
public struct Fingerprint: Sendable, Hashable {
    public var algorithm: String
    public var value: String

    public init(algorithm: String, value: String) {
        self.algorithm = algorithm
        self.value = value
    }
}

/// c= line.
public struct ConnectionData: Sendable, Hashable {
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }
}

/// b= line, e.g. AS (kbit/s) or TIAS (bit/s).
public struct Bandwidth: Sendable, Hashable {
    public var type: String
    public var value: Int

    public init(type: String, value: Int) {
        self.type = type
        self.value = value
    }
}

/// An attribute Sluice does not interpret, kept so that nothing is silently lost.
public struct SDPAttribute: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}

/// a=group (RFC 5888), e.g. BUNDLE or LS.
public struct MediaGroup: Sendable, Hashable {
    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }
}

/// a=msid-semantic (e.g. "WMS *").
public struct MsidSemantic: Sendable, Hashable {
    public var semantics: String
    public var identifiers: [String]

    public init(semantics: String = "WMS", identifiers: [String] = []) {
        self.semantics = semantics
        self.identifiers = identifiers
    }
}

/// a=msid (RFC 8830): stream id and optional track id.
public struct MediaStreamID: Sendable, Hashable {
    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }
}

/// One `name=value` (or bare `name`) item of a=fmtp or of a=rid restrictions, kept in order.
public struct FormatParameter: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == FormatParameter {
    /// The value of the first parameter named `name` (case-insensitive).
    public func value(of name: String) -> String? {
        first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The a=fmtp value text: `a=1;b=2`.
    public var formatted: String {
        map { p in p.value.map { "\(p.name)=\($0)" } ?? p.name }.joined(separator: ";")
    }
}

/// a=rtcp-fb (RFC 4585): `nack`, `nack pli`, `ccm fir`, `goog-remb`, `transport-cc`.
public struct RTCPFeedback: Sendable, Hashable {
    public var type: String
    public var parameter: String?

    public init(type: String, parameter: String? = nil) {
        self.type = type
        self.parameter = parameter
    }
}

/// One payload type of an RTP m-line: a=rtpmap plus its a=fmtp and a=rtcp-fb lines.
public struct CodecDescription: Sendable, Hashable {
    public var payloadType: Int
    /// As written in the SDP; compare with `hasName(_:)` since case varies between stacks.
    public var name: String
    public var clockRate: Int
    public var channels: Int?
    public var parameters: [FormatParameter]
    public var feedback: [RTCPFeedback]

    public init(payloadType: Int, name: String, clockRate: Int, channels: Int? = nil,
                parameters: [FormatParameter] = [], feedback: [RTCPFeedback] = []) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.parameters = parameters
        self.feedback = feedback
    }

    public func hasName(_ other: String) -> Bool { name.lowercased() == other.lowercased() }

    public var isRTX: Bool { hasName("rtx") }

    /// For RTX: the payload type it repairs (fmtp apt=).
    public var associatedPayloadType: Int? { parameters.value(of: "apt").flatMap { Int($0) } }
}

/// a=extmap (RFC 8285).
public struct ExtensionMap: Sendable, Hashable {
    public var id: Int
    public var direction: MediaDirection?
    public var uri: String
    public var attributes: String?

    public init(id: Int, direction: MediaDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }
}

/// All a=ssrc lines of one SSRC (RFC 5576), attributes in order.
public struct SSRCDescription: Sendable, Hashable {
    public var ssrc: UInt32
    public var attributes: [SDPAttribute]

    public init(ssrc: UInt32, attributes: [SDPAttribute] = []) {
        self.ssrc = ssrc
        self.attributes = attributes
    }

    public var cname: String? { attributes.first { $0.name == "cname" }?.value }
    public var msid: String? { attributes.first { $0.name == "msid" }?.value }
}

/// a=ssrc-group, e.g. `FID primary rtx` or `SIM low mid high`.
public struct SSRCGroup: Sendable, Hashable {
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }
}

/// a=rid (RFC 8851).
public struct RIDDescription: Sendable, Hashable {
    public enum Direction: String, Sendable, Hashable { case send, recv }

    public var id: String
    public var direction: Direction
    /// Restrictions such as `pt=96,97` or `max-width=1280`, kept in order.
    public var restrictions: [FormatParameter]

    public init(id: String, direction: Direction, restrictions: [FormatParameter] = []) {
        self.id = id
        self.direction = direction
        self.restrictions = restrictions
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

/// a=simulcast (RFC 8853): per direction a list of streams, each with its alternatives.
public struct SimulcastDescription: Sendable, Hashable {
    public var send: [[SimulcastRID]]
    public var recv: [[SimulcastRID]]

    public init(send: [[SimulcastRID]] = [], recv: [[SimulcastRID]] = []) {
        self.send = send
        self.recv = recv
    }
}
