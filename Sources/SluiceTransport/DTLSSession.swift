import COpenSSL
import SluiceVocabulary
import SluiceWire

public enum DTLSFailure: Error, Sendable, Equatable {
    /// The handshake failed (OpenSSL's reason, a fatal alert, or too many retransmissions).
    case handshake(String)
    /// The peer's certificate does not match the fingerprint from signaling.
    case fingerprintMismatch
    /// A fatal error or alert after the handshake.
    case connection(String)
}

/// SRTP master keys from the DTLS handshake (RFC 5764 section 4.2), sorted by direction.
public struct SRTPKeyMaterial: Sendable, Equatable {
    public let profile: SRTPProfile
    /// Protects what this side sends.
    public let localKey: [UInt8]
    public let localSalt: [UInt8]
    /// Unprotects what the peer sends.
    public let remoteKey: [UInt8]
    public let remoteSalt: [UInt8]
    /// What runs the sessions made from these keys: the DTLS context's `srtpBackend`.
    public let backend: SRTPBackend

    public func makeOutboundSession() throws -> SRTPSession {
        try SRTPSession(profile: profile, key: localKey, salt: localSalt, direction: .outbound, backend: backend)
    }

    public func makeInboundSession() throws -> SRTPSession {
        try SRTPSession(profile: profile, key: remoteKey, salt: remoteSalt, direction: .inbound, backend: backend)
    }
}

/// One DTLS 1.2 association over memory BIOs: datagrams go in through `handle(datagram:)` and
/// come out through `drainOutgoing`, so the session never touches a socket. After the
/// handshake it checks the peer certificate against the expected fingerprint and exports the
/// DTLS-SRTP keys. Not thread-safe: it belongs to one worker.
public final class DTLSSession {
    public enum State: Sendable, Equatable {
        case new, connecting, connected, closed
        case failed(DTLSFailure)
    }

    public static let defaultMTU = 1200
    static let recordHeaderSize = 13

    public let role: DTLSRole
    public let context: DTLSContext
    /// From the peer's SDP a=fingerprint; may be updated until the handshake completes.
    public var expectedFingerprint: (algorithm: String, value: String)
    public private(set) var state = State.new
    public private(set) var srtpKeyMaterial: SRTPKeyMaterial?
    /// The peer certificate's fingerprint with the expected algorithm, once connected.
    public private(set) var peerFingerprint: String?
    /// Largest datagram `drainOutgoing` hands out (several records are packed up to it).
    public let mtu: Int

    /// SSL*
    private let ssl: OpaquePointer
    /// BIO* (owned by ssl)
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private let initialRetransmitMicros: UInt32
    private var readBuffer: UnsafeMutableRawBufferPointer?

    /// - Parameter initialRetransmitMicros: the first handshake retransmission timeout; it doubles
    ///   on each retransmission up to 4 s.
    public init(context: DTLSContext, role: DTLSRole, expectedFingerprint: (algorithm: String, value: String),
                mtu: Int = DTLSSession.defaultMTU, initialRetransmitMicros: UInt32 = 400_000) throws {
        OpenSSLLibrary.clearErrors()
        guard let ssl = SSL_new(context.context) else { throw DTLSSetupError("SSL_new") }
        guard let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw DTLSSetupError("BIO_new")
        }
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        self.role = role
        self.context = context
        self.expectedFingerprint = expectedFingerprint
        self.mtu = mtu
        self.initialRetransmitMicros = max(1, initialRetransmitMicros)

        OpenSSLMacros.setRetryOnEmpty(readBIO)
        OpenSSLMacros.setRetryOnEmpty(writeBIO)
        SSL_set_bio(ssl, readBIO, writeBIO)  // ssl owns both now
        OpenSSLMacros.setMTU(ssl, mtu)
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        DTLS_set_timer_cb(ssl) { ssl, previous in
            guard let ssl, let me = SSL_get_ex_data(ssl, 0) else { return previous == 0 ? 1_000_000 : previous * 2 }
            let session = Unmanaged<DTLSSession>.fromOpaque(me).takeUnretainedValue()
            return previous == 0 ? session.initialRetransmitMicros : min(previous * 2, 4_000_000)
        }
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
    }

    deinit {
        SSL_free(ssl)
        readBuffer?.deallocate()
    }

    /// Begins the handshake: a client writes its ClientHello to the outgoing queue; a server
    /// waits for one.
    public func start() {
        guard state == .new else { return }
        state = .connecting
        if role == .client { driveHandshake() }
    }

    /// Feeds one received datagram. Handshake progress and replies land in the outgoing queue;
    /// decrypted application data (SCTP) is passed to `applicationData` record by record.
    @discardableResult
    public func handle(datagram: UnsafeRawBufferPointer, applicationData: (UnsafeRawBufferPointer) -> Void) -> State {
        feed(datagram) { readApplicationData(applicationData) }
    }

    /// Feeds one received datagram of a session that carries no application data (no data
    /// channels): what decrypts is read and dropped through a small stack buffer, so such a
    /// session never holds the 18 KB record buffer (most players: docs/design.md, "Memory per
    /// player").
    @discardableResult
    public func handle(datagram: UnsafeRawBufferPointer) -> State {
        feed(datagram) {
            withUnsafeTemporaryAllocation(byteCount: 512, alignment: 16) { drain(into: $0) { _ in } }
        }
    }

    private func feed(_ datagram: UnsafeRawBufferPointer, read: () -> Void) -> State {
        guard datagram.count > 0, let base = datagram.baseAddress, datagram.count <= Int(Int32.max) else { return state }
        switch state {
        case .new:
            state = .connecting  // a server that was not started explicitly
        case .connecting, .connected:
            break
        case .closed, .failed:
            return state
        }
        guard BIO_write(readBIO, base, Int32(datagram.count)) == Int32(datagram.count) else { return state }
        if state == .connecting { driveHandshake() }
        if state == .connected { read() }
        // Records OpenSSL did not consume (for example after a failure) must not linger.
        if BIO_ctrl_pending(readBIO) > 0 { OpenSSLMacros.resetBIO(readBIO) }
        return state
    }

    private func driveHandshake() {
        OpenSSLLibrary.clearErrors()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            completeHandshake()
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            break
        case SSL_ERROR_ZERO_RETURN:
            state = .closed
        default:
            state = .failed(.handshake(DTLSSession.describeFailure()))
        }
    }

    private func completeHandshake() {
        guard let peer = SSL_get1_peer_certificate(ssl) else {
            state = .failed(.handshake("no peer certificate"))
            return
        }
        defer { X509_free(peer) }
        guard let fingerprint = DTLSCertificate.fingerprint(of: peer, algorithm: expectedFingerprint.algorithm) else {
            state = .failed(.handshake("unsupported fingerprint algorithm \(expectedFingerprint.algorithm)"))
            return
        }
        peerFingerprint = fingerprint
        guard fingerprint.uppercased() == expectedFingerprint.value.uppercased() else {
            state = .failed(.fingerprintMismatch)
            return
        }
        guard let keys = exportSRTPKeys() else {
            state = .failed(.handshake("no DTLS-SRTP profile negotiated"))
            return
        }
        srtpKeyMaterial = keys
        state = .connected
    }

    private func exportSRTPKeys() -> SRTPKeyMaterial? {
        guard let selected = SSL_get_selected_srtp_profile(ssl),
              let profile = SRTPProfile(rawValue: UInt16(truncatingIfNeeded: selected.pointee.id))
        else { return nil }
        let keyLength = profile.keyLength, saltLength = profile.saltLength
        var material = [UInt8](repeating: 0, count: 2 * (keyLength + saltLength))
        let label = "EXTRACTOR-dtls_srtp"
        let exported = label.withCString { name in
            SSL_export_keying_material(ssl, &material, material.count, name, label.utf8.count, nil, 0, 0)
        }
        guard exported == 1 else { return nil }
        // client key | server key | client salt | server salt
        let clientKey = Array(material[0..<keyLength])
        let serverKey = Array(material[keyLength..<2 * keyLength])
        let clientSalt = Array(material[2 * keyLength..<2 * keyLength + saltLength])
        let serverSalt = Array(material[2 * keyLength + saltLength..<2 * (keyLength + saltLength)])
        switch role {
        case .client:
            return SRTPKeyMaterial(profile: profile, localKey: clientKey, localSalt: clientSalt,
                                   remoteKey: serverKey, remoteSalt: serverSalt, backend: context.srtpBackend)
        case .server:
            return SRTPKeyMaterial(profile: profile, localKey: serverKey, localSalt: serverSalt,
                                   remoteKey: clientKey, remoteSalt: clientSalt, backend: context.srtpBackend)
        }
    }

    private func readApplicationData(_ deliver: (UnsafeRawBufferPointer) -> Void) {
        if readBuffer == nil {
            readBuffer = .allocate(byteCount: 16_384 + 2_048, alignment: 16)
        }
        guard let buffer = readBuffer else { return }
        drain(into: buffer, deliver)
    }

    /// SSL_read until it wants more; a record longer than `buffer` comes in pieces (DTLS keeps
    /// the rest of a record for the next read), which only the discarding reader sees.
    private func drain(into buffer: UnsafeMutableRawBufferPointer, _ deliver: (UnsafeRawBufferPointer) -> Void) {
        guard let base = buffer.baseAddress else { return }
        while true {
            OpenSSLLibrary.clearErrors()
            let count = SSL_read(ssl, base, Int32(buffer.count))
            if count > 0 {
                deliver(UnsafeRawBufferPointer(start: base, count: Int(count)))
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return
            case SSL_ERROR_ZERO_RETURN:
                state = .closed  // close_notify
            default:
                state = .failed(.connection(DTLSSession.describeFailure()))
            }
            return
        }
    }

    /// Encrypts application data (an SCTP packet) into the outgoing queue.
    public func sendApplicationData(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard state == .connected, let base = bytes.baseAddress, bytes.count > 0, bytes.count <= Int(Int32.max)
        else { return false }
        return SSL_write(ssl, base, Int32(bytes.count)) == Int32(bytes.count)
    }

    /// Sends close_notify (into the outgoing queue) and stops.
    public func close() {
        guard state == .connected || state == .connecting else { return }
        _ = SSL_shutdown(ssl)
        state = .closed
    }

    /// Whether `drainOutgoing` has something to hand out.
    public var hasOutgoing: Bool { BIO_ctrl_pending(writeBIO) > 0 }

    /// Hands out what OpenSSL wrote, as datagrams of whole DTLS records packed up to `mtu`
    /// (a record larger than that goes alone), then empties the queue. The pointer is valid
    /// only during the call.
    public func drainOutgoing(_ body: (UnsafeRawBufferPointer) -> Void) {
        let pending = OpenSSLMacros.memoryBIOData(writeBIO)
        guard pending.count > 0 else { return }
        var start = 0
        var end = 0
        while end < pending.count {
            let recordEnd = DTLSSession.recordEnd(in: pending, at: end)
            if recordEnd - start > mtu, end > start {
                body(UnsafeRawBufferPointer(rebasing: pending[start..<end]))
                start = end
            }
            end = recordEnd
        }
        if end > start { body(UnsafeRawBufferPointer(rebasing: pending[start..<end])) }
        OpenSSLMacros.resetBIO(writeBIO)
    }

    /// End of the DTLS record starting at `offset` (13-byte header, length at offset 11);
    /// a malformed tail is taken whole.
    static func recordEnd(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Int {
        guard offset + recordHeaderSize <= bytes.count else { return bytes.count }
        let length = Int(bytes.loadBigEndianUInt16(at: offset + 11))
        return min(bytes.count, offset + recordHeaderSize + length)
    }

    /// Microseconds until `handleTimeout()` should run, or nil when no timer is armed.
    public var nextTimeoutMicros: Int? {
        switch state {
        case .connecting, .connected: return OpenSSLMacros.dtlsTimeoutMicros(ssl)
        default: return nil
        }
    }

    /// Retransmits the last flight if its timer expired (into the outgoing queue); fails the
    /// session when OpenSSL gives up.
    public func handleTimeout() {
        guard state == .connecting || state == .connected else { return }
        OpenSSLLibrary.clearErrors()
        if OpenSSLMacros.dtlsHandleTimeout(ssl) < 0 {
            state = .failed(.handshake("retransmission limit reached: " + DTLSSession.describeFailure()))
        }
    }

    private static func describeFailure() -> String {
        let text = OpenSSLLibrary.drainErrors()
        return text.isEmpty ? "unknown error" : text
    }
}
