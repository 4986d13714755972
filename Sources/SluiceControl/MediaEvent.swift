import SluiceVocabulary

/// What the engine tells the control plane, in order per handle.
public enum MediaEvent: Sendable {
    /// `ends` is true when the handle is gone after this status.
    case streamStatus(session: SessionID, handle: StreamHandle, stream: String, role: StreamRole,
                      status: StreamStatus, info: String?, ends: Bool)
    /// `data` holds only JSON-friendly values: String, Int, Double, Bool.
    case streamEvent(session: SessionID, handle: StreamHandle, stream: String, type: String,
                     by: String?, data: [String: StreamEventValue])
}
