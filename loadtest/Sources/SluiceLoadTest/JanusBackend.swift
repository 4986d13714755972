import Foundation
import SluiceClient
import SluiceTestMedia
import SluiceWire

/// Janus VideoRoom as the target: one room for the run (created at the start, destroyed at
/// the end) in which every publisher publishes and every player subscribes to its publisher's
/// feed. Each client has its own Janus session on its own WebSocket, as a browser would.
final class JanusBackend: LoadTestBackend, @unchecked Sendable {
    static let plugin = "janus.plugin.videoroom"

    let options: LoadTestOptions
    let url: LoopbackURL
    let room: Int
    private let control: JanusConnection
    private let controlHandle: UInt64

    private init(options: LoadTestOptions, url: LoopbackURL, room: Int, control: JanusConnection, handle: UInt64) {
        self.options = options
        self.url = url
        self.room = room
        self.control = control
        controlHandle = handle
    }

    /// Connects, and creates the room.
    static func prepare(options: LoadTestOptions, url: LoopbackURL) async throws -> JanusBackend {
        let control = JanusConnection(url: url.url, requestTimeout: options.joinTimeoutSeconds)
        do {
            try await control.open()
            _ = try await control.createSession()
            let handle = try await control.attach(plugin: plugin) { _ in }
            let room = options.janusRoom ?? Int.random(in: 100_000...999_999_999)
            var body: JSONObject = [
                "request": "create", "room": .int(Int64(room)), "description": "sluice-loadtest",
                "publishers": .int(Int64(options.publishers)), "audiocodec": "opus", "videocodec": "vp8",
                "bitrate": 0, "fir_freq": 0, "permanent": false, "notify_joining": false,
            ]
            if let key = options.janusAdminKey { body["admin_key"] = .string(key) }
            _ = try await control.request(handle: handle, body: .object(body))
            return JanusBackend(options: options, url: url, room: room, control: control, handle: handle)
        } catch {
            await control.close()
            throw LoadTestError.server("Janus at \(url.url.absoluteString): cannot create a VideoRoom: \(error)")
        }
    }

    func makePublisher(index: Int) -> LoadTestPublisher {
        JanusPublisher(index: index, streamName: "\(options.streamPrefix)-\(index)", room: room, options: options, url: url)
    }

    /// Janus takes one URL (`validate` refuses several), so `url` is always the backend's.
    func makePlayer(index: Int, publisher: LoadTestPublisher, url: LoopbackURL) -> LoadTestPlayer {
        // Janus's publishers are always JanusPublisher here.
        JanusPlayer(index: index, publisher: publisher as? JanusPublisher, room: room, options: options, url: url)
    }

    func finish() async {
        _ = try? await control.request(handle: controlHandle, body: ["request": "destroy", "room": .int(Int64(room))])
        await control.close()
    }

    /// The JSEP a request carries.
    static func jsep(_ type: String, _ sdp: String) -> JSONValue {
        ["type": .string(type), "sdp": .string(sdp)]
    }

    /// Waits until `condition` holds, failing at `deadline` (monotonic µs).
    static func wait(for what: String, deadline: UInt64, _ condition: () -> Bool) async throws {
        while !condition() {
            guard MonotonicClock.nowMicros() < deadline else { throw JoinTimeout(what: what) }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }
}

/// A publisher in the run's VideoRoom: `join` as publisher, then `publish` with the offer of
/// SluiceClient's PeerConnection; Janus's answer completes it.
final class JanusPublisher: LoadTestPublisher, @unchecked Sendable {
    let index: Int
    let streamName: String
    let source: SyntheticPublisher
    private let room: Int
    private let options: LoadTestOptions
    private let url: LoopbackURL
    private var janus: JanusConnection?
    private(set) var connection: PeerConnection?
    /// The publisher id players subscribe to; set once joined.
    private(set) var feedID: UInt64?
    private let webrtcUp = ResultFlag()

    init(index: Int, streamName: String, room: Int, options: LoadTestOptions, url: LoopbackURL) {
        self.index = index
        self.streamName = streamName
        self.room = room
        self.options = options
        self.url = url
        source = PublisherMedia.source(options)
    }

    func join(workers: MediaWorkerPool, deadline: UInt64) async throws {
        let janus = JanusConnection(url: url.url, requestTimeout: options.joinTimeoutSeconds)
        self.janus = janus
        try await janus.open()
        _ = try await janus.createSession()
        let flag = webrtcUp
        let handle = try await janus.attach(plugin: JanusBackend.plugin) { event in
            if event.kind == "webrtcup" { flag.set() }
        }
        let joined = try await janus.request(handle: handle, body: [
            "request": "join", "ptype": "publisher", "room": .int(Int64(room)), "display": .string(streamName),
        ])
        guard let id = JanusConnection.id(joined.data["id"]) else { throw JanusError(code: -1, reason: "joined without id") }
        let connection = try PeerConnection(configuration: PublisherMedia.configuration(options),
                                            worker: workers.next(), security: workers.security)
        connection.delegate = source
        self.connection = connection
        let reply = try await janus.request(handle: handle, body: ["request": "publish"],
                                            jsep: JanusBackend.jsep("offer", connection.localDescription))
        guard let answer = reply.jsep?["sdp"]?.stringValue else { throw JanusError(code: -1, reason: "publish without an answer") }
        try await connection.setRemoteDescription(answer)
        try await janus.trickleCompleted(handle: handle)
        try await connection.waitUntilConnected(timeout: SluicePlayer.secondsLeft(until: deadline))
        try await JanusBackend.wait(for: "webrtcup", deadline: deadline) { flag.isSet }
        feedID = id
    }

    func sentCounts() -> (packets: UInt64, failures: UInt64, keyFrames: UInt64) {
        PublisherMedia.sentCounts(connection, source)
    }

    func stop() async {
        connection?.close()
        await janus?.close()
    }
}

/// A subscriber to one publisher's feed: `join` as subscriber; Janus offers; SluiceClient
/// answers (`PeerConnection.acceptOffer`) and `start`s.
final class JanusPlayer: LoadTestPlayer, @unchecked Sendable {
    let index: Int
    let streamName: String
    let probe = PlayerProbe()
    let events = PlayerEventLog()
    private weak var publisher: JanusPublisher?
    private let room: Int
    private let options: LoadTestOptions
    private let url: LoopbackURL
    private var janus: JanusConnection?
    private var connection: PeerConnection?

    init(index: Int, publisher: JanusPublisher?, room: Int, options: LoadTestOptions, url: LoopbackURL) {
        self.index = index
        self.publisher = publisher
        streamName = publisher?.streamName ?? "?"
        self.room = room
        self.options = options
        self.url = url
    }

    func join(workers: MediaWorkerPool, deadline: UInt64) async throws {
        guard let feed = publisher?.feedID else { throw JanusError(code: -1, reason: "its publisher has no feed") }
        let janus = JanusConnection(url: url.url, requestTimeout: options.joinTimeoutSeconds)
        self.janus = janus
        try await janus.open()
        _ = try await janus.createSession()
        let events = self.events
        let handle = try await janus.attach(plugin: JanusBackend.plugin) { event in
            switch event.kind {
            case "hangup": events.ended("hangup: \(event.message["reason"]?.stringValue ?? "")")
            case "detached": events.ended("detached")
            case "closed": events.ended("Janus WebSocket closed")
            default: break
            }
        }
        let attached = try await janus.request(handle: handle, body: [
            "request": "join", "ptype": "subscriber", "room": .int(Int64(room)),
            "streams": [["feed": .int(Int64(bitPattern: feed))]],
        ])
        guard let offer = attached.jsep?["sdp"]?.stringValue else { throw JanusError(code: -1, reason: "attached without an offer") }
        let connection = try PeerConnection(
            configuration: .init(role: .play, audio: options.audio, video: options.video, loopbackOnly: true),
            worker: workers.next(), security: workers.security)
        connection.delegate = probe
        probe.playing()
        self.connection = connection
        let answer = try await connection.acceptOffer(offer)
        _ = try await janus.request(handle: handle, body: ["request": "start"], jsep: JanusBackend.jsep("answer", answer))
        try await janus.trickleCompleted(handle: handle)
        try await connection.waitUntilConnected(timeout: SluicePlayer.secondsLeft(until: deadline))
        try await SluicePlayer.waitForFirstPacket(probe, deadline: deadline)
    }

    func stop() async {
        events.markStopping()
        connection?.close()
        await janus?.close()
    }
}

/// A flag set on one thread and read on another.
final class ResultFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
