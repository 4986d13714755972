import CSRTP

/// The process-wide libsrtp setup, done once (`srtp_init` registers the cipher and auth types).
public enum SRTPLibrary {
    private static let initialized: Bool = {
        srtp_init() == srtp_err_status_ok
    }()

    public static func initialize() {
        precondition(initialized, "srtp_init failed")
    }
}
