import SluiceClient
import SluiceTestMedia

/// A publisher or player of any target: joins, then runs until stopped.
protocol LoadTestClient: AnyObject, Sendable {
    /// Signaling and media setup; throws when it fails or `deadline` (monotonic µs) passes.
    func join(workers: MediaWorkerPool, deadline: UInt64) async throws
    /// Closes media and signaling; never throws.
    func stop() async
}

protocol LoadTestPublisher: LoadTestClient {
    var index: Int { get }
    var streamName: String { get }
    /// Packets sent, frames the connection could not send, key frames sent (call before `stop`).
    func sentCounts() -> (packets: UInt64, failures: UInt64, keyFrames: UInt64)
}

protocol LoadTestPlayer: LoadTestClient {
    var index: Int { get }
    var streamName: String { get }
    var probe: PlayerProbe { get }
    var events: PlayerEventLog { get }
}

/// Makes the clients of one target and owns what the target needs around them (a Janus room).
protocol LoadTestBackend: Sendable {
    func makePublisher(index: Int) -> LoadTestPublisher
    /// `url`: where this player signals (`PlayerPlacement`); one of the run's `--url`s.
    func makePlayer(index: Int, publisher: LoadTestPublisher, url: LoopbackURL) -> LoadTestPlayer
    /// After every client stopped.
    func finish() async
}

/// Sluice: each client has its own session; streams are named. Publishers signal on the
/// first URL, each player on the one it is given.
struct SluiceBackend: LoadTestBackend {
    let options: LoadTestOptions
    let publisherURL: LoopbackURL

    func makePublisher(index: Int) -> LoadTestPublisher {
        SluicePublisher(index: index, streamName: "\(options.streamPrefix)-\(index)", options: options, url: publisherURL)
    }

    func makePlayer(index: Int, publisher: LoadTestPublisher, url: LoopbackURL) -> LoadTestPlayer {
        SluicePlayer(index: index, streamName: publisher.streamName, options: options, url: url)
    }

    func finish() async {}
}

/// The synthetic media of a publisher of any target.
enum PublisherMedia {
    static func source(_ options: LoadTestOptions) -> SyntheticPublisher {
        let layers = SimulcastLadder.layers(options)
        if options.simulcast { return SyntheticPublisher(simulcast: layers, audio: options.audio) }
        return SyntheticPublisher(video: options.video ? layers.last : nil, audio: options.audio)
    }

    static func configuration(_ options: LoadTestOptions) -> PeerConnection.Configuration {
        .init(role: .publish, audio: options.audio, video: options.video, loopbackOnly: true,
              simulcastLayers: options.simulcastLayers, iceTransport: iceTransport(options))
    }

    static func iceTransport(_ options: LoadTestOptions) -> PeerConnection.ICETransport {
        options.iceTransport == .tcp ? .tcp : .udp
    }

    /// Read on the connection's worker.
    static func sentCounts(_ connection: PeerConnection?, _ source: SyntheticPublisher) -> (packets: UInt64, failures: UInt64, keyFrames: UInt64) {
        guard let connection, connection.state != .closed else { return (0, 0, 0) }
        let box = ResultBox<(UInt64, UInt64, UInt64)>()
        connection.perform {
            let packets = connection.sentCounts(.video).packets + connection.sentCounts(.audio).packets
            box.set((packets, source.sendFailures, source.layers.reduce(0) { $0 + $1.keyFramesProduced }))
        }
        return box.wait()
    }
}
