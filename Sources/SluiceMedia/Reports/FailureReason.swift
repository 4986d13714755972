import SluiceTransport

/// Why the media side ends a handle; SluiceControl's `StatusInfo` has the words.
public enum FailureReason: Sendable, Equatable {
    case iceTimeout
    case dtlsError
    case dtlsFingerprint
    /// A publisher sent no media for `rtc.rtpTimeoutSeconds` (`RTPActivityWatch`).
    case rtpActivity
    /// A publisher stayed over a cap it was told to be stopped for.
    case limitExceeded(PublishLimit)

    public init(_ failure: TransportFailure) {
        switch failure {
        case .iceTimeout: self = .iceTimeout
        case .dtlsError: self = .dtlsError
        case .dtlsFingerprint: self = .dtlsFingerprint
        }
    }
}
