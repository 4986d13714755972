#if canImport(SluiceTransport)
import Foundation
import SluiceRTP
import SluiceSDP
import SluiceTransport
import SluiceWire
import Synchronization


/// One client-side PeerConnection to a Sluice server, on Linux, through SluiceTransport:
/// ICE controlling, DTLS client, SRTP. It makes the offer (`offer.sdp`), takes the server's
/// answer (`setRemoteDescription`), then sends and receives media on its `MediaWorker`.
///
/// Threads: `setRemoteDescription`, `waitUntilConnected` and `close` are for the control side;
/// the send methods and every delegate call belong to the worker thread (use `perform` to get
/// there). `close()` must be called, and not from the worker thread: the worker holds the
/// connection until then.
///
/// Workers: by default a connection makes a worker (a thread) of its own. Many connections
/// (the load tester) can share a few workers instead (`init(configuration:worker:)`): each
/// then opens a UDP socket of its own on the shared worker, which tells connections to the
/// same server address apart by that local socket.
// @unchecked: the `var`s are the worker thread's, but `answer` and `delegate`, set before the worker first reads them.
public final class PeerConnection: @unchecked Sendable {
    public enum State: Int, Sendable {
        case new, connecting, connected, failed, closed
    }

    public struct Configuration: Sendable {
        public var role: StreamRole
        public var audio: Bool
        public var video: Bool
        /// Where the connection's own worker binds (port 0: any free port).
        public var bindAddress: String
        /// Send only to candidates in 127.0.0.0/8 (the project's tests and load tester never
        /// send elsewhere); false to reach a server on another host.
        public var loopbackOnly: Bool
        public var consentTimeoutSeconds: Int
        /// Packet buffers of the connection's own worker (a shared worker has its own pool).
        public var poolCapacity: Int
        /// Publish only: video layers sent as SSRC simulcast (a=ssrc-group:SIM), lowest first;
        /// 1 sends no simulcast. At most 3.
        public var simulcastLayers: Int
        /// `.tcp`: connect to the answer's passive TCP candidate (ICE-TCP, RFC 4571 framing)
        /// instead of sending datagrams to a UDP one, as a client behind a UDP-blocking
        /// network must.
        public var iceTransport: ICETransport
        /// Offer Opus in RED (RFC 2198) too. A publisher answered RED sends RED (`sendsAudioRED`:
        /// its source writes the payloads); a player gets RED as its publisher sends it.
        public var audioRED = false
        /// Offer the dependency descriptor on video. A publisher answered it sends it with the
        /// values its source gives (`sendsDependencyDescriptor`); a player gets it as its
        /// publisher sends it.
        public var dependencyDescriptor = false

        public init(role: StreamRole, audio: Bool = true, video: Bool = true, bindAddress: String = "127.0.0.1",
                    loopbackOnly: Bool = true, consentTimeoutSeconds: Int = 30, poolCapacity: Int = 2048,
                    simulcastLayers: Int = 1, iceTransport: ICETransport = .udp) {
            self.role = role
            self.iceTransport = iceTransport
            self.simulcastLayers = simulcastLayers
            self.audio = audio
            self.video = video
            self.bindAddress = bindAddress
            self.loopbackOnly = loopbackOnly
            self.consentTimeoutSeconds = consentTimeoutSeconds
            self.poolCapacity = poolCapacity
        }
    }

    /// Which candidates of the answer a connection uses.
    public enum ICETransport: String, Sendable, CaseIterable {
        case udp, tcp
    }

    /// Largest RTP packet the send methods build (header and payload, before SRTP).
    public static let maxPacketSize = 1400

    public let configuration: Configuration
    public let worker: MediaWorker
    /// The UDP socket of this connection: the worker's primary socket when the worker is the
    /// connection's own, else one opened for it on the shared worker.
    public let socket: WorkerSocket
    public let security: DTLSSecurity
    public let offer: ClientOffer
    /// The offer's SDP text, to send as `publish`'s or `play`'s `sdp`.
    public let localDescription: String
    /// Sender SSRC of the RTCP this connection sends (a player's PLI and REMB).
    public let localSSRC: UInt32
    /// Set by `setRemoteDescription`, read-only afterwards.
    public private(set) var answer: ServerAnswer?
    /// Set before `setRemoteDescription`; called on the worker thread.
    public weak var delegate: PeerConnectionDelegate?

    private let ownsWorker: Bool
    let stateValue = Atomic<Int>(State.new.rawValue)
    private let waiters = Mutex<(next: Int, failure: String?, continuations: [Int: CheckedContinuation<Void, Error>])>((0, nil, [:]))

    // Worker thread only (internal, not private: PeerConnection+Sending.swift and
    // PeerConnection+TransportDelegate.swift use them).
    var transport: WebRTCTransport?
    var audioStream: OutgoingRTPStream
    /// One per simulcast layer, lowest first.
    var videoStreams: [OutgoingRTPStream]
    var extensionIDs = SendExtensionIDs([:])
    var transportSequence = UInt16.random(in: 0...UInt16.max)
    var audioPayloadType: Int = -1
    var audioREDPayloadType: Int = -1
    /// A publisher that was answered RED: its audio payloads must be RED (worker thread).
    public internal(set) var sendsAudioRED = false
    /// Publish: the answer kept the dependency descriptor, so `send(..., dependency:)` writes it.
    public internal(set) var sendsDependencyDescriptor = false
    var videoPayloadType: Int = -1
    var remoteVideoSSRC: UInt32 = 0

    /// Counters, written on the worker thread: read them there (`perform`).
    public internal(set) var packetsReceived: UInt64 = 0
    public internal(set) var keyFrameRequestsReceived: UInt64 = 0

    /// `worker`: a worker shared with other connections (started by its owner, who also stops
    /// it after closing them); nil makes one for this connection. `security`: a certificate
    /// to share too (making one costs a key generation).
    public init(configuration: Configuration, worker: MediaWorker? = nil, security: DTLSSecurity? = nil) throws {
        guard (1...3).contains(configuration.simulcastLayers) else {
            throw PeerConnectionError.transport("simulcastLayers must be 1 to 3, not \(configuration.simulcastLayers)")
        }
        self.configuration = configuration
        guard let bind = SocketAddress(host: configuration.bindAddress, port: 0) else {
            throw PeerConnectionError.transport("bad bind address \(configuration.bindAddress)")
        }
        do {
            if let worker {
                self.worker = worker
                socket = try worker.openSocket(bindAddress: bind)
                ownsWorker = false
            } else {
                self.worker = try MediaWorker(index: 0, bindAddress: bind, poolCapacity: configuration.poolCapacity)
                socket = self.worker.primarySocket
                ownsWorker = true
            }
        } catch {
            throw PeerConnectionError.transport("\(error)")
        }
        let openedSocket = ownsWorker ? nil : socket
        let sharedWorker = self.worker
        do {
            self.security = try security ?? DTLSSecurity.make()
        } catch {
            if let openedSocket { sharedWorker.execute { sharedWorker.closeSocket(openedSocket) } }
            throw error
        }
        var generator = SystemRandomNumberGenerator()
        func nonZero() -> UInt32 { UInt32.random(in: 1...UInt32.max, using: &generator) }
        localSSRC = nonZero()
        audioStream = OutgoingRTPStream(ssrc: nonZero(), payloadType: UInt8(ClientOffer.opusPayloadType), mid: ClientOffer.audioMid)
        let layers = configuration.role == .publish ? configuration.simulcastLayers : 1
        videoStreams = (0..<layers).map { _ in
            OutgoingRTPStream(ssrc: nonZero(), payloadType: UInt8(ClientOffer.vp8PayloadType), mid: ClientOffer.videoMid)
        }
        let local = socket.localAddress
        var offer = ClientOffer(role: configuration.role, audio: configuration.audio, video: configuration.video,
                            iceUfrag: Self.randomToken(length: 8, using: &generator),
                            icePassword: Self.randomToken(length: 24, using: &generator),
                            fingerprint: self.security.fingerprint,
                            audioSSRC: audioStream.ssrc, videoSSRC: videoStreams[0].ssrc,
                            simulcastSSRCs: layers > 1 ? videoStreams.map(\.ssrc) : [],
                            cname: Self.randomToken(length: 16, using: &generator),
                            candidate: (local.host, Int(local.port)))
        offer.audioRED = configuration.audioRED
        offer.dependencyDescriptor = configuration.dependencyDescriptor
        self.offer = offer
        localDescription = offer.sdp
        if ownsWorker { self.worker.start() }
    }

    public var state: State { State(rawValue: stateValue.load(ordering: .acquiring)) ?? .closed }

    public var audioSSRC: UInt32 { offer.audioSSRC }
    /// The (lowest) video layer's SSRC.
    public var videoSSRC: UInt32 { offer.videoSSRC }
    /// Video SSRCs per simulcast layer, lowest first (one without simulcast).
    public var videoSSRCs: [UInt32] { offer.simulcastSSRCs.isEmpty ? [offer.videoSSRC] : offer.simulcastSSRCs }

    private static func randomToken(length: Int, using generator: inout SystemRandomNumberGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    // MARK: Control side

    /// Takes the server's answer and starts ICE and DTLS towards its candidate.
    public func setRemoteDescription(_ sdp: String) async throws {
        guard state == .new else { throw PeerConnectionError.transport("the remote description is already set") }
        let answer: ServerAnswer
        do {
            answer = try ServerAnswer(parsing: sdp)
        } catch {
            throw PeerConnectionError.answer("\(error)")
        }
        try await connect(to: answer)
    }

    /// For a server that makes the offer (Janus's VideoRoom to its subscribers): answers it
    /// (`ClientAnswer`: Opus and VP8 accepted, DTLS client), starts ICE and DTLS towards its
    /// candidate, and returns the answer's SDP to send back. Play connections only; the
    /// connection's own offer (`localDescription`) goes unused.
    public func acceptOffer(_ sdp: String) async throws -> String {
        guard state == .new else { throw PeerConnectionError.transport("the remote description is already set") }
        guard configuration.role == .play else { throw PeerConnectionError.transport("only a player can answer an offer") }
        var remote: ServerAnswer
        let local: ClientAnswer
        do {
            let parsed = try SessionDescription(parsing: sdp)
            remote = try ServerAnswer(parsing: sdp)
            let candidate = socket.localAddress
            local = try ClientAnswer(offer: parsed, iceUfrag: offer.iceUfrag, icePassword: offer.icePassword,
                                     fingerprint: security.fingerprint, candidate: (candidate.host, Int(candidate.port)))
        } catch {
            throw PeerConnectionError.answer("offer: \(error)")
        }
        if let pt = local.audioPayloadType { remote.audio?.payloadType = pt } else { remote.audio = nil }
        if let pt = local.videoPayloadType { remote.video?.payloadType = pt } else { remote.video = nil }
        try await connect(to: remote)
        return local.sdp
    }

    private func connect(to answer: ServerAnswer) async throws {
        let tcp = configuration.iceTransport == .tcp
        let usable = (tcp ? answer.tcpCandidates : answer.candidates).lazy
            .compactMap { SocketAddress(host: $0.ip, port: UInt16(clamping: $0.port)) }
            .first { !self.configuration.loopbackOnly || ($0.family == .ipv4 && $0.isLoopback) }
        guard let remote = usable else { throw PeerConnectionError.noUsableCandidate }
        self.answer = answer
        let parameters = TransportParameters(
            localUfrag: offer.iceUfrag, localPassword: offer.icePassword,
            remoteUfrag: answer.iceUfrag, remotePassword: answer.icePassword,
            remoteFingerprintAlgorithm: answer.fingerprintAlgorithm, remoteFingerprint: answer.fingerprint,
            dtlsRole: .client, consentTimeoutMicros: UInt64(configuration.consentTimeoutSeconds) * 1_000_000,
            remoteCandidate: remote, remoteCandidateIsTCP: tcp)
        stateValue.store(State.connecting.rawValue, ordering: .releasing)
        do {
            try await start(answer: answer, parameters: parameters)
        } catch {
            stateValue.store(State.failed.rawValue, ordering: .releasing)
            resumeWaiters(with: .failure(error), failure: "\(error)")
            throw error
        }
    }

    private func start(answer: ServerAnswer, parameters: TransportParameters) async throws {
        try await onWorker {
            self.audioPayloadType = answer.audio.map { Int($0.payloadType) } ?? -1
            self.videoPayloadType = answer.video.map { Int($0.payloadType) } ?? -1
            self.audioREDPayloadType = answer.audio?.redPayloadType.map(Int.init) ?? -1
            if let audio = answer.audio { self.audioStream.payloadType = audio.payloadType }
            if self.configuration.role == .publish, let red = answer.audio?.redPayloadType {
                self.audioStream.payloadType = red
                self.sendsAudioRED = true
            }
            if let video = answer.video {
                for i in self.videoStreams.indices { self.videoStreams[i].payloadType = video.payloadType }
            }
            self.remoteVideoSSRC = answer.video?.ssrcs.first ?? 0
            self.extensionIDs = SendExtensionIDs((answer.video ?? answer.audio)?.extensionIDs ?? [:])
            self.sendsDependencyDescriptor = self.configuration.role == .publish && self.extensionIDs.dependencyDescriptor != nil
            let transport = try WebRTCTransport(worker: self.worker, socket: self.socket, security: self.security,
                                                parameters: parameters)
            transport.delegate = self
            self.transport = transport
            self.worker.addTickable(self)
        }
    }

    /// Returns once DTLS is up; throws `.failed` with the transport's info, or `.timedOut`.
    public func waitUntilConnected(timeout seconds: Double = 10) async throws {
        let id = waiters.withLock { w in
            w.next += 1
            return w.next
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let resolved: Result<Void, Error>? = waiters.withLock { w in
                switch state {
                case .connected: return .success(())
                case .failed: return .failure(PeerConnectionError.failed(w.failure ?? ""))
                case .closed: return .failure(PeerConnectionError.closed)
                case .new, .connecting:
                    w.continuations[id] = continuation
                    return nil
                }
            }
            if let resolved { continuation.resume(with: resolved) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
                let waiting = self?.waiters.withLock { $0.continuations.removeValue(forKey: id) }
                waiting?.resume(throwing: PeerConnectionError.timedOut)
            }
        }
    }

    /// Runs `body` on the worker thread.
    public func perform(_ body: @escaping () -> Void) {
        worker.execute(body)
    }

    /// Closes the transport (DTLS close_notify) and then its socket on a shared worker, or
    /// stops the worker when it is the connection's own.
    public func close() { end(clean: true) }

    /// Goes silent without a word, as a device that lost its network: the transport stops,
    /// its socket closes and nothing is sent (no DTLS close_notify), so the server finds the
    /// loss by its ICE consent timeout. For tests and the load tester; `close` is the clean end.
    public func drop() { end(clean: false) }

    private func end(clean: Bool) {
        let previous = stateValue.exchange(State.closed.rawValue, ordering: .acquiringAndReleasing)
        guard previous != State.closed.rawValue else { return }
        let done = DispatchSemaphore(value: 0)
        worker.execute {
            if clean { self.transport?.close() } else { self.transport?.abandon() }
            self.transport = nil
            self.worker.removeTickable(self)
            if !self.ownsWorker { self.worker.closeSocket(self.socket) }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 5)
        if ownsWorker { worker.stop() }
        resumeWaiters(with: .failure(PeerConnectionError.closed))
    }

    private func onWorker(_ body: @escaping () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            worker.execute {
                do {
                    try body()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: PeerConnectionError.transport("\(error)"))
                }
            }
        }
    }

    func resumeWaiters(with result: Result<Void, Error>, failure: String? = nil) {
        let waiting = waiters.withLock { w in
            if let failure { w.failure = failure }
            let taken = w.continuations
            w.continuations = [:]
            return taken
        }
        for continuation in waiting.values { continuation.resume(with: result) }
    }
}
#endif
