import SluiceVocabulary
import SluiceWire

/// Everything a transport needs to know about its peer, from the SDP negotiation.
public struct TransportParameters: Sendable {
    public var localUfrag: String
    public var localPassword: String
    public var remoteUfrag: String
    public var remotePassword: String
    public var remoteFingerprintAlgorithm: String
    public var remoteFingerprint: String
    public var dtlsRole: DTLSRole
    public var consentTimeoutMicros: UInt64
    /// Client role (a load tester, the Swift SDK): the peer's candidate to send ICE checks
    /// to, as the controlling agent. nil: the server role, ICE-lite, controlled.
    public var remoteCandidate: SocketAddress?
    /// Client role: true when `remoteCandidate` is a passive TCP candidate, which the
    /// transport connects to (ICE-TCP, RFC 4571 framing) instead of sending datagrams.
    public var remoteCandidateIsTCP: Bool

    public init(localUfrag: String, localPassword: String, remoteUfrag: String, remotePassword: String,
                remoteFingerprintAlgorithm: String, remoteFingerprint: String, dtlsRole: DTLSRole,
                consentTimeoutMicros: UInt64, remoteCandidate: SocketAddress? = nil, remoteCandidateIsTCP: Bool = false) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        self.remoteFingerprintAlgorithm = remoteFingerprintAlgorithm
        self.remoteFingerprint = remoteFingerprint
        self.dtlsRole = dtlsRole
        self.consentTimeoutMicros = consentTimeoutMicros
        self.remoteCandidate = remoteCandidate
        self.remoteCandidateIsTCP = remoteCandidateIsTCP
    }
}

/// What a transport tells its owner (a producer or a consumer). Called on the worker thread.
public protocol WebRTCTransportDelegate: AnyObject {
    func transportDidConnect(_ transport: WebRTCTransport)
    /// Called once; the transport is unregistered from its worker by then.
    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure)
    /// A decrypted RTP packet; the bytes are valid only during the call.
    func transport(_ transport: WebRTCTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer, now: UInt64)
    func transport(_ transport: WebRTCTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer, now: UInt64)
}

/// One PeerConnection on a worker: ICE-lite, DTLS, then SRTP over the selected tuple.
///
/// STUN from any address reaches it by ufrag; DTLS and SRTP only from a tuple that passed
/// an authenticated connectivity check (the worker maps those addresses to this transport).
/// A tuple is a `MediaPath`: a UDP address on the worker's socket, or a TCP media connection
/// (ICE-TCP), so everything above ICE is the same on both.
public final class WebRTCTransport: DatagramReceiver, WorkerTickable {
    public enum State: Equatable {
        case new, connecting, connected, failed, closed
    }

    public let worker: MediaWorker
    /// The worker socket this transport's UDP traffic uses (and its ufrag is registered on).
    public let socket: WorkerSocket
    public let parameters: TransportParameters
    public var delegate: WebRTCTransportDelegate? {
        get { delegateStorage }
        set { delegateStorage = newValue }
    }
    public var state: State { stateStorage }
    /// The media core's unit tests (SluiceMediaTests, through `@testable`): a transport that
    /// counts as connected without a handshake, so a consumer forwards. With no SRTP keys and
    /// no selected path, what it sends goes straight back to the pool.
    func connectForTesting() { stateStorage = .connected }
    // Private storage behind the public properties: a `public` stored property of a class is
    // read under a dynamic exclusivity check (swift_beginAccess, about 70 instructions) on each
    // access, since another module might reach it; a private one that is only ever read and
    // assigned, never held across a call, has its checks removed by the optimizer. `state` is
    // read for every packet sent and received (and by every consumer's `isConnected`).
    private weak var delegateStorage: WebRTCTransportDelegate?
    private var stateStorage: State = .new

    private let ice: ICELiteServer
    /// Only in the client role.
    private let iceClient: ICEClient?
    let dtls: DTLSSession
    private var srtpIn: SRTPSession?
    var srtpOut: SRTPSession? {
        didSet { srtpOutReference = srtpOut.map { Unmanaged.passUnretained($0) } }
    }
    /// `srtpOut` for the packet path, which would otherwise retain and release it around each
    /// packet's protect (perf): `srtpOut` keeps it alive, and nothing a protect calls ends it.
    var srtpOutReference: Unmanaged<SRTPSession>?
    var selected: MediaPath?
    /// Client role: where the checks go (UDP to the remote candidate, or our TCP connection).
    private let clientPath: MediaPath?
    private let createdMicros: UInt64
    private var scratch = [UInt8](repeating: 0, count: 1500)

    /// Called with 1 before and 0 after the handling of each incoming RTP packet (unprotect,
    /// the owner's fan-out, protect and queue for every player). Nil in production; the test
    /// that counts heap allocations on the packet path installs its counter here. `package`,
    /// not `public`: only this package's tests see it (in release too, where the allocation
    /// test runs and `@testable` is not available), never an app that links the SDK.
    package static var rtpPathProbe: PacketPathProbes.Probe? {
        get { PacketPathProbes.slots[PacketPathProbes.rtpPath] }
        set { PacketPathProbes.slots[PacketPathProbes.rtpPath] = newValue }
    }
    /// `PacketPathProbes.slots`, read once here, so a packet reads an instance constant.
    private let probes = PacketPathProbes.slots

    /// Where decrypted DTLS application data (SCTP packets, one per record) goes: the data
    /// channel stack's inlet, when the SDP accepted a data channel. Worker thread; the bytes
    /// last only for the call. Nil: they are dropped.
    public var applicationDataReceiver: ((UnsafeRawBufferPointer, UInt64) -> Void)?

    /// Counters for stats and the log.
    public internal(set) var srtpErrors: UInt64 = 0
    public private(set) var droppedStun: UInt64 = 0
    /// SCTP packets OpenSSL refused to seal (larger than a record fits in the DTLS MTU).
    public internal(set) var applicationDataWriteFailures: UInt64 = 0

    /// `socket`: one of `worker`'s sockets; nil for its primary socket (the server's case).
    public init(worker: MediaWorker, socket: WorkerSocket? = nil, security: DTLSSecurity,
                parameters: TransportParameters) throws {
        self.worker = worker
        self.socket = socket ?? worker.primarySocket
        self.parameters = parameters
        let now = MonotonicClock.nowMicros()
        createdMicros = now
        ice = ICELiteServer(localUfrag: parameters.localUfrag, localPassword: parameters.localPassword,
                            remoteUfrag: parameters.remoteUfrag.isEmpty ? nil : parameters.remoteUfrag, now: now)
        dtls = try DTLSSession(context: security.context,
                           role: parameters.dtlsRole,
                           expectedFingerprint: (algorithm: parameters.remoteFingerprintAlgorithm,
                                                 value: parameters.remoteFingerprint))
        if let remote = parameters.remoteCandidate {
            ice.isControlling = true
            iceClient = ICEClient(localUfrag: parameters.localUfrag, remoteUfrag: parameters.remoteUfrag,
                                  remotePassword: parameters.remotePassword, remoteAddress: remote,
                                  consentTimeoutMicros: parameters.consentTimeoutMicros)
            let path = parameters.remoteCandidateIsTCP
                ? try worker.openTCPConnection(to: remote)
                : worker.udpPath(to: remote, via: self.socket)
            clientPath = path
            // Responses to our checks come from the remote candidate, not by ufrag.
            worker.bind(path, to: self)
        } else {
            iceClient = nil
            clientPath = nil
        }
        worker.register(ufrag: parameters.localUfrag, receiver: self, socket: self.socket)
        worker.addTickable(self)
    }

    public var isConnected: Bool { state == .connected }

    /// The path media takes now (nil until ICE selected one): UDP, or a TCP connection.
    public var selectedPath: MediaPath? { selected }

    /// Packets dropped because the selected TCP connection's send queue was full (a slow
    /// reader); 0 over UDP.
    public var tcpSendDroppedPackets: UInt64 {
        guard let selected, selected.isTCP else { return 0 }
        return worker.tcpSendDroppedPackets(on: selected)
    }

    // MARK: Receive (worker thread)

    public func receive(_ datagram: UnsafeMutableRawBufferPointer, from source: MediaPath, now: UInt64) {
        guard state != .closed && state != .failed else { return }
        switch PacketClass.of(firstByte: datagram[0]) {
        case .stun: receiveSTUN(UnsafeRawBufferPointer(datagram), from: source, now: now)
        case .dtls: receiveDTLS(UnsafeRawBufferPointer(datagram), now: now)
        case .rtp: receiveSRTP(datagram, now: now)
        case .zrtp, .turnChannel, .unknown: break
        }
    }

    /// A TCP connection this transport used closed: forget it as a tuple. If it was the
    /// selected one, media waits for the peer's next check (a browser nominates another pair,
    /// or reconnects); consent expiry ends the transport if none comes.
    public func pathDidClose(_ path: MediaPath) {
        ice.removePath(path)
        if selected == path { selected = nil }
        // The client role does not reconnect: its only path is gone.
        if path == clientPath { fail(.iceTimeout) }
    }

    private func receiveSTUN(_ datagram: UnsafeRawBufferPointer, from source: MediaPath, now: UInt64) {
        guard let message = try? STUNMessage(parsing: datagram) else {
            droppedStun += 1
            return
        }
        if let iceClient, message.type != .bindingRequest {
            if source == clientPath, iceClient.handleResponse(message, from: source.remote, now: now),
               iceClient.state == .connected {
                select(source)
            } else {
                droppedStun += 1
            }
            return
        }
        let result = scratch.withUnsafeMutableBytes { reply -> ICEResult in
            let result = ice.handleBindingRequest(message, from: source, now: now, reply: reply)
            if case .respond(let length, _) = result {
                worker.queueSend(copying: UnsafeRawBufferPointer(rebasing: reply[0..<length]), path: source)
            }
            return result
        }
        guard case .respond(_, let change) = result else {
            droppedStun += 1
            return
        }
        if change != .none {
            worker.bind(source, to: self)
        }
        if iceClient == nil, let tuple = ice.selectedPath, tuple != selected {
            select(tuple)
        }
    }

    /// ICE found the path: media and DTLS go to `tuple` from now on.
    private func select(_ tuple: MediaPath) {
        guard tuple != selected else { return }
        selected = tuple
        if state == .new {
            stateStorage = .connecting
            if parameters.dtlsRole == .client {
                dtls.start()
                flushDTLS()
            }
        }
    }

    private func receiveDTLS(_ datagram: UnsafeRawBufferPointer, now: UInt64) {
        if let receiver = applicationDataReceiver {
            dtls.handle(datagram: datagram) { receiver($0, now) }
        } else {
            dtls.handle(datagram: datagram)
        }
        flushDTLS()
        switch dtls.state {
        case .connected where state != .connected:
            connect()
        case .failed(let failure):
            fail(failure == .fingerprintMismatch ? .dtlsFingerprint : .dtlsError)
        case .closed:
            // The peer closed its PeerConnection (close_notify): the handle ends now rather
            // than after the consent timeout.
            fail(.dtlsError)
        default:
            break
        }
    }

    private func connect() {
        guard let keys = dtls.srtpKeyMaterial else {
            fail(.dtlsError)
            return
        }
        do {
            srtpIn = try keys.makeInboundSession()
            srtpOut = try keys.makeOutboundSession()
        } catch {
            fail(.dtlsError)
            return
        }
        stateStorage = .connected
        delegate?.transportDidConnect(self)
    }

    @inline(__always)
    private func receiveSRTP(_ datagram: UnsafeMutableRawBufferPointer, now: UInt64) {
        guard state == .connected, let srtpIn, datagram.count >= 12 else { return }
        var length = datagram.count
        let isRTCP = datagram[1] >= 192 && datagram[1] <= 223
        if isRTCP {
            guard srtpIn.unprotectRTCP(datagram.baseAddress!, length: &length) else {
                srtpErrors += 1
                return
            }
            ice.refreshConsent(now: now)
            delegate?.transport(self, didReceiveRTCP: UnsafeMutableRawBufferPointer(rebasing: datagram[0..<length]), now: now)
        } else {
            let probe = probes[PacketPathProbes.rtpPath]
            probe?(1)
            defer { probe?(0) }
            guard srtpIn.unprotectRTP(datagram.baseAddress!, length: &length) else {
                srtpErrors += 1
                return
            }
            ice.refreshConsent(now: now)
            delegate?.transport(self, didReceiveRTP: UnsafeMutableRawBufferPointer(rebasing: datagram[0..<length]), now: now)
        }
    }

    // MARK: Timers and teardown

    public func tick(now: UInt64) {
        switch state {
        case .closed, .failed:
            return
        case .new, .connecting, .connected:
            if let iceClient {
                let length = scratch.withUnsafeMutableBytes { iceClient.poll(now: now, into: $0) }
                if let length, let clientPath {
                    scratch.withUnsafeBytes {
                        worker.queueSend(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length]), path: clientPath)
                    }
                }
                if iceClient.state == .failed {
                    fail(.iceTimeout)
                    return
                }
            } else if ice.isConsentExpired(now: now, timeoutMicros: parameters.consentTimeoutMicros) {
                fail(.iceTimeout)
                return
            }
            if state == .connecting, let timeout = dtls.nextTimeoutMicros, timeout <= 0 {
                dtls.handleTimeout()
                flushDTLS()
                if case .failed = dtls.state { fail(.dtlsError) }
            }
        }
    }

    /// A connected server-side transport only watches its consent, whose timeout is seconds:
    /// checked every 100 ms rather than every turn. ICE checks and DTLS retransmissions while
    /// connecting, and a client's ICE, keep every turn.
    public func nextTick(after now: UInt64) -> UInt64 {
        state == .connected && iceClient == nil ? now + Self.consentCheckMicros : now + MediaWorker.tickMicros
    }

    static let consentCheckMicros: UInt64 = 100_000

    private func fail(_ failure: TransportFailure) {
        guard state != .failed && state != .closed else { return }
        stateStorage = .failed
        worker.unregister(receiver: self)
        delegate?.transport(self, didFail: failure)
    }

    /// Stops all traffic and leaves the worker's tables without a word to the peer (no DTLS
    /// close_notify), as a device that lost its network: the peer finds out by its consent
    /// timeout. For a client's `PeerConnection.drop`. Idempotent.
    public func abandon() {
        guard state != .closed else { return }
        stateStorage = .closed
        worker.unregister(receiver: self)
    }

    /// Stops all traffic and leaves the worker's tables. Idempotent.
    public func close() {
        guard state != .closed else { return }
        if state == .connected {
            dtls.close()
            flushDTLS()
        }
        stateStorage = .closed
        worker.unregister(receiver: self)
    }
}
