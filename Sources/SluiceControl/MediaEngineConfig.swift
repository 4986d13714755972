import SluiceRecord
import SluiceTransport
import SluiceWire
import SluiceLog

/// What the media engine needs from the server config (`rtc` and `limits`).
public struct MediaEngineConfig: Sendable {
    public var bindAddress: SocketAddress
    /// First worker's port; worker i listens on basePort + i (0: ephemeral, for tests).
    public var basePort: UInt16
    public var workers: Int
    /// First worker's ICE-TCP port; worker i listens on tcpBasePort + i (0: ephemeral, for
    /// tests). nil: no TCP, and answers carry UDP candidates only.
    public var tcpBasePort: UInt16?
    public var tcpOptions = TCPMediaOptions()
    /// Where workers write their log lines (bad TCP input); nil: nowhere.
    public var workerLog: Log?
    public var announcedAddresses: [String]
    public var iceConsentTimeoutSeconds: Int
    /// A publisher that sends no media for this long fails with "Failed by RTP activity"; 0: off.
    public var rtpTimeoutSeconds = 10
    /// UDP GSO for the workers' send batches (`rtc.gso`); a kernel that refuses it turns it off.
    public var udpSegmentation = true
    /// What runs SRTP and the DTLS-SRTP profiles offered (`rtc.srtp`, `rtc.srtpProfiles`), for
    /// every transport of every worker, relay links included.
    public var srtp = SRTPConfiguration()
    public var maxStreams: Int
    public var maxPlayersPerStream: Int
    /// `recording`: nil, recording is off and `record: true` is refused.
    public var recording: RecordingSettings?
    /// Where the recorder writes its log lines (a file started, stopped or failed).
    public var recorderLog: (@Sendable (String) -> Void)?

    public init(bindAddress: SocketAddress, basePort: UInt16, workers: Int, announcedAddresses: [String],
                iceConsentTimeoutSeconds: Int = 10, maxStreams: Int = 1000, maxPlayersPerStream: Int = 500,
                tcpBasePort: UInt16? = nil, workerLog: Log? = nil) {
        self.bindAddress = bindAddress
        self.tcpBasePort = tcpBasePort
        self.workerLog = workerLog
        self.basePort = basePort
        self.workers = workers
        self.announcedAddresses = announcedAddresses
        self.iceConsentTimeoutSeconds = iceConsentTimeoutSeconds
        self.maxStreams = maxStreams
        self.maxPlayersPerStream = maxPlayersPerStream
    }
}

extension MediaEngineConfig {
    /// A relay link's ICE consent lapses after this long without a check (origin) or an answer
    /// (edge; it checks every 2 s): nodes sit on one network, so a node that died is noticed
    /// within seconds, not after a browser's `iceConsentTimeoutSeconds`.
    var linkConsentTimeoutMicros: UInt64 {
        UInt64(iceConsentTimeoutSeconds > 0 ? min(iceConsentTimeoutSeconds, 5) : 5) * 1_000_000
    }

    /// A browser's: `rtc.iceConsentTimeoutSeconds`.
    var consentTimeoutMicros: UInt64 { UInt64(iceConsentTimeoutSeconds) * 1_000_000 }
}
