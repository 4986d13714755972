import SluiceVocabulary

/// Why an SDP could not be parsed or negotiated.
///
/// `description` is written for people: signaling puts it verbatim into a JSON-RPC
/// error message ("Malformed SDP at line 7: port is not a number: ...").
public enum SDPError: Error, Equatable, Sendable {
    /// A line breaks the grammar. `line` is 1-based; `text` is the offending line as received.
    case malformed(line: Int, text: String, reason: String)
    /// No audio or video m-line could be accepted (codecs, or the publisher's codec for play).
    case noCommonCodecs
    /// The offer holds no audio or video m-line at all.
    case noMediaSections
    /// No audio/video m-line has a direction that fits the role (publish needs the client to send).
    case directionMismatch(role: StreamRole)
    /// Neither the bundle's m-line nor the session carries ice-ufrag and ice-pwd.
    case missingICECredentials
    /// Neither the bundle's m-line nor the session carries a=fingerprint.
    case missingFingerprint
    /// An accepted m-line lacks a=rtcp-mux; Sluice demultiplexes RTP and RTCP on one port.
    case missingRTCPMux(mid: String)
    /// An audio/video m-line has no a=mid (Unified Plan requires one). `mediaIndex` is 0-based.
    case missingMid(mediaIndex: Int)
    /// More than one m-line would be accepted but the offer has no a=group:BUNDLE.
    case bundleRequired
    /// a=setup:holdconn (or another role that leaves no DTLS client/server split).
    case unsupportedDTLSSetup(String)
}

extension SDPError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .malformed(line, text, reason):
            return "Malformed SDP at line \(line): \(reason): \"\(Self.clipped(text))\""
        case .noCommonCodecs:
            return StatusInfo.noCommonCodecs
        case .noMediaSections:
            return "SDP offer has no audio or video m-line"
        case .directionMismatch(let role):
            switch role {
            case .publish: return "SDP offer for publish has no sendonly or sendrecv audio/video m-line"
            case .play: return "SDP offer for play has no recvonly or sendrecv audio/video m-line"
            }
        case .missingICECredentials:
            return "SDP offer has no a=ice-ufrag and a=ice-pwd"
        case .missingFingerprint:
            return "SDP offer has no a=fingerprint"
        case .missingRTCPMux(let mid):
            return "SDP offer m-line mid \(Self.clipped(mid)) has no a=rtcp-mux (rtcp-mux is required)"
        case .missingMid(let index):
            return "SDP offer m-line \(index + 1) has no a=mid (Unified Plan is required)"
        case .bundleRequired:
            return "SDP offer has no a=group:BUNDLE (BUNDLE is required)"
        case .unsupportedDTLSSetup(let setup):
            return "SDP offer has unsupported a=setup:\(Self.clipped(setup))"
        }
    }

    /// Keeps error messages readable when a hostile line is kilobytes long.
    static func clipped(_ text: String, limit: Int = 120) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "..."
    }
}

#if canImport(Foundation)
import Foundation

extension SDPError: LocalizedError {
    public var errorDescription: String? { description }
}
#endif
