import SluiceDataChannel
import SluiceMedia
import SluiceVocabulary

public struct PublishRequest: Sendable {
    public var session: SessionID
    public var stream: String
    public var offer: String
    public var constraints: StreamConstraints
    /// Size and rate caps checked against what arrives (`limitExceeded`); none by default.
    public var caps: PublishCaps
    /// The answer's `x-google-start-bitrate` (kbit/s) for the video codec; nil writes none.
    /// Signaling decides it from the app's `startBitrate` setting (`StartBitrate`).
    public var startBitrateKbps: Int?
    /// `record: true`: the stream is recorded (`Recordings`) under the app's
    /// name (`appKey`, the template's `{app}`).
    public var record = false
    public var appKey = ""
    /// The app's data channel rules; nil: a `webrtc-datachannel` m-line is refused (port 0).
    public var dataChannels: DataChannelPolicy? = DataChannelPolicy()
    /// Dynacast (`apps[].dynacast`): a simulcast publisher is told which layers have a taker
    /// (`layersWanted`). Off unless signaling sets it: a WHIP publisher cannot be told.
    public var dynacast = false
    /// Opus RED (`apps[].red`): answered first when the offer has it, so the publisher sends it.
    public var red = true
    /// `e2ee: true`: the publisher encrypts its frames end to end. The server reads no payload
    /// past the clear bytes, and refuses to record it (docs/protocol.md section 6).
    public var e2ee = false

    public init(session: SessionID, stream: String, offer: String, constraints: StreamConstraints,
                caps: PublishCaps = PublishCaps(), startBitrateKbps: Int? = nil) {
        self.session = session
        self.stream = stream
        self.offer = offer
        self.constraints = constraints
        self.caps = caps
        self.startBitrateKbps = startBitrateKbps
    }
}
