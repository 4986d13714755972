import Foundation
import SluiceClient
import SluiceTestMedia
import SluiceWire

/// One publisher against Sluice: a session and a `publish` PeerConnection fed by a
/// `SyntheticPublisher` (VP8 with key frames at the set interval, Opus-sized audio).
final class SluicePublisher: LoadTestPublisher, @unchecked Sendable {
    let index: Int
    let streamName: String
    let source: SyntheticPublisher
    private let options: LoadTestOptions
    private let url: LoopbackURL
    private var session: SluiceSession?
    private(set) var connection: PeerConnection?

    init(index: Int, streamName: String, options: LoadTestOptions, url: LoopbackURL) {
        self.index = index
        self.streamName = streamName
        self.options = options
        self.url = url
        source = PublisherMedia.source(options)
    }

    /// Returns once the server reports PUBLISHING (it has the first RTP packet).
    func join(workers: MediaWorkerPool, deadline: UInt64) async throws {
        let session = SluiceSession(url: url.url, requestTimeout: options.joinTimeoutSeconds)
        self.session = session
        try await session.open()
        _ = try await session.connect(appKey: options.appKey, clientVersion: "sluice-loadtest")
        let connection = try PeerConnection(configuration: PublisherMedia.configuration(options),
                                            worker: workers.next(), security: workers.security)
        connection.delegate = source
        self.connection = connection
        // No caps: an app with limits would refuse them, and the synthetic source follows no REMB.
        let constraints = StreamConstraints(audio: options.audio ? .on : .off, video: options.video ? .on : .off)
        let publishing = Task { () -> Bool in
            for await notification in session.notifications {
                if case .streamStatus(let status) = notification, status.role == .publish {
                    if status.status == .publishing { return true }
                    if status.status == .failed || status.status == .unpublished { return false }
                }
            }
            return false
        }
        let answer = try await session.publish(stream: streamName, sdp: connection.localDescription,
                                               constraints: constraints, record: options.record ? true : nil)
        try await connection.setRemoteDescription(answer.sdp)
        try await connection.waitUntilConnected(timeout: SluicePlayer.secondsLeft(until: deadline))
        let timer = Task {
            try await Task.sleep(nanoseconds: UInt64(SluicePlayer.secondsLeft(until: deadline) * 1e9))
            publishing.cancel()
        }
        defer { timer.cancel() }
        guard await publishing.value else { throw JoinTimeout(what: "PUBLISHING status") }
    }

    func sentCounts() -> (packets: UInt64, failures: UInt64, keyFrames: UInt64) {
        PublisherMedia.sentCounts(connection, source)
    }

    func stop() async {
        connection?.close()
        if let session {
            try? await session.disconnect()
            session.close()
        }
    }
}

/// The layers a publisher sends: with simulcast a quarter, a half and the full size (lowest
/// first) at a sixteenth, a quarter and all of the bitrate; without, the full size only.
enum SimulcastLadder {
    static func layers(_ options: LoadTestOptions) -> [SyntheticVP8Source.Configuration] {
        let divisors = options.simulcast ? [4, 2, 1] : [1]
        return divisors.map { d in
            SyntheticVP8Source.Configuration(width: max(1, options.videoWidth / d), height: max(1, options.videoHeight / d),
                                             fps: options.fps,
                                             bitrateKbps: max(30, options.videoBitrateKbps / (d * d)),
                                             keyFrameIntervalSeconds: options.keyFrameIntervalSeconds)
        }
    }

    static func totalKbps(_ options: LoadTestOptions) -> Int {
        layers(options).reduce(0) { $0 + $1.bitrateKbps }
    }
}
