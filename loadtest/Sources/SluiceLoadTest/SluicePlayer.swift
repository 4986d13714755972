import Foundation
import SluiceClient
import SluiceWire

/// One player against Sluice: its own signaling session, a `play` PeerConnection on a shared
/// worker, a `PlayerProbe` on its packets and a reader of its notifications.
final class SluicePlayer: LoadTestPlayer, @unchecked Sendable {
    let index: Int
    let streamName: String
    let probe = PlayerProbe()
    let events = PlayerEventLog()
    private let options: LoadTestOptions
    private let url: LoopbackURL
    private var session: SluiceSession?
    private var connection: PeerConnection?
    private var handle: String?
    private var headerReceiver: PlayerHeaderReceiver?

    init(index: Int, streamName: String, options: LoadTestOptions, url: LoopbackURL) {
        self.index = index
        self.streamName = streamName
        self.options = options
        self.url = url
    }

    var constraints: StreamConstraints {
        var limits = TrackLimits()
        limits.width = options.maxWidth
        limits.height = options.maxHeight
        limits.quality = options.quality.map(PlayQuality.named)
        let video: StreamConstraints.Track = !options.video ? .off : limits == TrackLimits() ? .on : .limits(limits)
        return StreamConstraints(audio: options.audio ? .on : .off, video: video)
    }

    /// Signaling, offer/answer, ICE and DTLS; returns when the first RTP packet arrived.
    func join(workers: MediaWorkerPool, deadline: UInt64) async throws {
        let session = SluiceSession(url: url.url, requestTimeout: options.joinTimeoutSeconds)
        self.session = session
        try await session.open()
        _ = try await session.connect(appKey: options.appKey, clientVersion: "sluice-loadtest")
        let connection = try PeerConnection(
            configuration: .init(role: .play, audio: options.audio, video: options.video, loopbackOnly: true,
                                 iceTransport: PublisherMedia.iceTransport(options)),
            worker: workers.next(), security: workers.security)
        connection.delegate = probe
        probe.playing()
        self.connection = connection
        let answer = try await session.play(stream: streamName, sdp: connection.localDescription, constraints: constraints,
                                              wait: options.playWait ? true : nil)
        handle = answer.handle
        listen(session, handle: answer.handle)
        try await connection.setRemoteDescription(answer.sdp)
        if options.playerReceive == .headers {
            headerReceiver = try await PlayerHeaderReceiver.install(on: connection, probe: probe)
        }
        try await connection.waitUntilConnected(timeout: Self.secondsLeft(until: deadline))
        try await Self.waitForFirstPacket(probe, deadline: deadline)
    }

    private func listen(_ session: SluiceSession, handle: String) {
        let events = self.events
        Task.detached {
            for await notification in session.notifications {
                switch notification {
                case .streamEvent(let event) where event.handle == handle && event.type == .layerChanged:
                    events.layerChanged(to: event.data?["layer"]?.intValue.flatMap { Int(exactly: $0) })
                case .streamStatus(let status) where status.handle == handle:
                    if status.status == .failed || status.status == .stopped || status.status == .unpublished {
                        events.ended("\(status.status)" + (status.info.map { " \($0)" } ?? ""))
                    }
                case .closed(let code, let reason):
                    events.ended("signaling closed (\(code.map(String.init) ?? "no code") \(reason))")
                default:
                    break
                }
            }
        }
    }

    func stop() async {
        events.markStopping()
        if let connection, let headerReceiver { headerReceiver.uninstall(from: connection) }
        connection?.close()
        if let session {
            try? await session.disconnect()
            session.close()
        }
    }

    static func secondsLeft(until deadline: UInt64) -> Double {
        let now = MonotonicClock.nowMicros()
        return deadline > now ? Double(deadline - now) / 1e6 : 0.001
    }

    static func waitForFirstPacket(_ probe: PlayerProbe, deadline: UInt64) async throws {
        while probe.firstPacketMicros == nil {
            if let failure = probe.failure { throw PeerConnectionError.failed(failure) }
            guard MonotonicClock.nowMicros() < deadline else { throw JoinTimeout(what: "the first media packet") }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }
}

/// A join step did not finish by the join deadline.
struct JoinTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "no \(what) within the join timeout" }
}
