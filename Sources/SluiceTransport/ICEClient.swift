import SluiceWire

/// The controlling side of ICE towards one remote candidate, as a load tester or client uses
/// it against an ICE-lite server: aggressive nomination (USE-CANDIDATE on every check), then
/// consent refreshes (RFC 7675). Driven by `poll(now:into:)`; it owns no socket or clock.
public final class ICEClient {
    public enum State: Sendable, Equatable {
        case new, checking, connected, failed
    }

    /// Priority of a peer-reflexive host candidate, component 1 (RFC 8445 section 5.1.2).
    public static let defaultPriority: UInt32 = 110 << 24 | 0xFFFF << 8 | 255

    public let remoteAddress: SocketAddress
    public let tieBreaker: UInt64
    public let priority: UInt32
    public private(set) var state = State.new
    /// This side's address as the server saw it (XOR-MAPPED-ADDRESS of the last success).
    public private(set) var mappedAddress: SocketAddress?
    /// ERROR-CODE of an error response that failed the check.
    public private(set) var lastErrorCode: Int?

    private let username: [UInt8]
    private let remoteKey: STUNIntegrityKey
    private let initialRTOMicros: UInt64
    private let maxTransmissions: Int
    private let consentIntervalMicros: UInt64
    private let consentTimeoutMicros: UInt64

    private var transactionID = STUNTransactionID.random()
    private var transmissions = 0
    private var nextSendMicros: UInt64 = 0
    private var rtoMicros: UInt64
    private var lastSuccessMicros: UInt64 = 0

    public init(localUfrag: String, remoteUfrag: String, remotePassword: String,
                remoteAddress: SocketAddress,
                tieBreaker: UInt64 = UInt64.random(in: 0...UInt64.max),
                priority: UInt32 = ICEClient.defaultPriority,
                initialRTOMicros: UInt64 = 250_000, maxTransmissions: Int = 7,
                consentIntervalMicros: UInt64 = 2_000_000, consentTimeoutMicros: UInt64 = 30_000_000) {
        username = Array(remoteUfrag.utf8) + [UInt8(ascii: ":")] + Array(localUfrag.utf8)
        remoteKey = STUNIntegrityKey(password: remotePassword)
        self.remoteAddress = remoteAddress
        self.tieBreaker = tieBreaker
        self.priority = priority
        self.initialRTOMicros = initialRTOMicros
        self.maxTransmissions = max(1, maxTransmissions)
        self.consentIntervalMicros = consentIntervalMicros
        self.consentTimeoutMicros = consentTimeoutMicros
        rtoMicros = initialRTOMicros
    }

    /// When `poll` has something to do next (absolute, same clock as `now`); nil once failed.
    public var nextDeadlineMicros: UInt64? {
        switch state {
        case .new: return 0
        case .checking: return nextSendMicros
        case .connected: return min(nextSendMicros, lastSuccessMicros &+ consentTimeoutMicros)
        case .failed: return nil
        }
    }

    /// Advances timers. Returns the length of a binding request written to `buffer`, to be sent
    /// to `remoteAddress` now, or nil if nothing is due (or the buffer is too small).
    public func poll(now: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        switch state {
        case .failed:
            return nil
        case .new:
            state = .checking
            return send(now: now, into: buffer, newTransaction: true)
        case .checking:
            guard now >= nextSendMicros else { return nil }
            guard transmissions < maxTransmissions else {
                state = .failed
                return nil
            }
            return send(now: now, into: buffer, newTransaction: false)
        case .connected:
            if now > lastSuccessMicros, now - lastSuccessMicros > consentTimeoutMicros {
                state = .failed
                return nil
            }
            guard now >= nextSendMicros else { return nil }
            return send(now: now, into: buffer, newTransaction: true)
        }
    }

    private func send(now: UInt64, into buffer: UnsafeMutableRawBufferPointer, newTransaction: Bool) -> Int? {
        if newTransaction {
            transactionID = .random()
            transmissions = 0
            rtoMicros = initialRTOMicros
        }
        let length = username.withUnsafeBytes { name in
            STUNMessageWriter.bindingRequest(into: buffer, transactionID: transactionID, username: name,
                                             priority: priority, tieBreaker: tieBreaker,
                                             useCandidate: true, key: remoteKey)
        }
        transmissions += 1
        if state == .connected {
            nextSendMicros = now + consentIntervalMicros
        } else {
            // RFC 8489 section 6.2.1: retransmit with the timeout doubling each time.
            nextSendMicros = now + rtoMicros
            rtoMicros *= 2
        }
        return length
    }

    /// Takes a STUN response; returns true if it answered the outstanding check (authenticated
    /// with the remote password, same transaction, from the remote address).
    @discardableResult
    public func handleResponse(_ message: STUNMessage, from source: SocketAddress, now: UInt64) -> Bool {
        guard state == .checking || state == .connected,
              source == remoteAddress,
              message.transactionID == transactionID,
              message.type.method == STUNMessageType.bindingMethod,
              message.fingerprintOffset == nil || message.checkFingerprint(),
              message.checkMessageIntegrity(key: remoteKey)
        else { return false }

        switch message.type.messageClass {
        case .successResponse:
            mappedAddress = message.xorMappedAddress
            lastSuccessMicros = now
            if state == .checking {
                state = .connected
                nextSendMicros = now + consentIntervalMicros
            }
            // The transaction is done: a retransmitted copy of this response must not count twice.
            transactionID = .random()
            return true
        case .errorResponse:
            lastErrorCode = message.errorCode?.code
            state = .failed
            return true
        default:
            return false
        }
    }
}
