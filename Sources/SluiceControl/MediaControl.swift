import SluiceDataChannel
import SluiceMedia
import SluiceVocabulary

/// What the control plane needs from the media side. `MediaEngine` is the real one;
/// signaling unit tests may supply their own. All calls come from one control thread.
public protocol MediaControl: AnyObject {
    /// Called from any thread when events are waiting; set by the control plane.
    var wakeup: @Sendable () -> Void { get set }
    func publish(_ request: PublishRequest) throws(MediaError) -> MediaAnswer
    func play(_ request: PlayRequest) throws(MediaError) -> MediaAnswer
    func stop(handle: StreamHandle) throws(MediaError)
    func stats(handle: StreamHandle) throws(MediaError) -> HandleStats
    func requestKeyFrame(handle: StreamHandle) throws(MediaError)
    /// New constraints for a play (layer choice) or a publish (bitrate cap).
    func update(handle: StreamHandle, constraints: StreamConstraints) throws(MediaError)
    /// `mute`/`unmute`: on a publish handle for every player, on a play handle for that player.
    func setMuted(handle: StreamHandle, kind: MediaKind, muted: Bool) throws(MediaError)
    /// A moderator's mute of a stream for every player, which its publisher cannot lift
    /// (the admin API's, and `muteStream` with an `admin` token). 1004 without a publisher.
    func setServerMuted(stream: String, kind: MediaKind, muted: Bool) throws(MediaError)
    func endSession(_ session: SessionID)
    func drainEvents(_ body: (MediaEvent) -> Void)
    func shutdown()
    /// The server has `recording.folder`: a `record: true` publish is taken (1008 without).
    var recordingEnabled: Bool { get }
    /// The handle's data channels and their counters (getStats); none by default.
    func dataChannelStats(handle: StreamHandle) -> [DataChannelStats]
    /// A pre-call test (docs/protocol.md section 6); refused (1002) by default.
    func precall(_ request: PrecallRequest) throws(MediaError) -> MediaAnswer
}

extension MediaControl {
    public func dataChannelStats(handle: StreamHandle) -> [DataChannelStats] { [] }
    public func precall(_ request: PrecallRequest) throws(MediaError) -> MediaAnswer { throw .restrictedAccess }
}
