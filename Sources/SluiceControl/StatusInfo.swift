import SluiceMedia
import SluiceVocabulary

extension StatusInfo {
    /// The info of a FAILED status for why the media side ended a handle.
    public static func failure(_ reason: FailureReason) -> String {
        switch reason {
        case .iceTimeout: return iceTimeout
        case .dtlsError: return dtlsError
        case .dtlsFingerprint: return dtlsFingerprint
        case .rtpActivity: return rtpActivity
        case .limitExceeded(let limit): return limitExceeded(EventWords.word(limit))
        }
    }
}
