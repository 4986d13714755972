import SluiceWire

/// Why a STUN message got no answer from an ICE agent.
public enum ICEDropReason: Sendable, Equatable {
    case notBindingRequest
    case missingUsername
    case usernameMismatch
    case missingIntegrity
    case badIntegrity
    case badFingerprint
    case replyBufferTooSmall
}

/// What an authenticated binding request changed in the agent's tuples.
public enum ICETupleChange: Sendable, Equatable {
    case none
    /// A new remote address was recorded; it may carry media but is not the selected one.
    case added
    /// The request's address is now the selected tuple (new, or newly nominated).
    case selected
}

public enum ICEResult: Sendable, Equatable {
    /// Send the first `length` bytes of the reply buffer back to the request's source address.
    case respond(length: Int, tupleChange: ICETupleChange)
    case drop(ICEDropReason)
}

/// The server side of ICE-lite for one transport (RFC 8445 sections 2.5 and 7.3): always
/// controlled, it never sends checks; it answers authenticated binding requests, learns the
/// remote tuples they come from, and takes the one nominated by USE-CANDIDATE as selected.
///
/// Unauthenticated requests (bad USERNAME, missing or wrong MESSAGE-INTEGRITY, wrong
/// FINGERPRINT) are dropped silently rather than answered with 400/401: an answer would tell a
/// prober that the ufrag exists and would let a spoofed source reflect traffic at a third party.
/// A well-formed peer never needs those error responses to make progress.
public final class ICELiteServer {
    /// A remote tuple: a UDP source address, or a TCP connection (ICE-TCP: the connection is
    /// the tuple, RFC 6544 section 7.1).
    public struct Tuple: Sendable, Equatable {
        public let path: MediaPath
        public var lastRequestMicros: UInt64
        public var address: SocketAddress { path.remote }
    }

    /// Tuples kept per transport. Only authenticated peers add tuples, and a real peer has a
    /// handful of candidates; past this, unnominated newcomers are answered but not recorded.
    public static let maxTuples = 16

    public let localUfrag: String
    public let localPassword: String
    public var remoteUfrag: String? {
        didSet { expectedUsername = ICELiteServer.username(local: localUfrag, remote: remoteUfrag) }
    }
    public let integrityKey: STUNIntegrityKey
    /// The client role (a full agent that checks and nominates, `ICEClient`) still answers its
    /// peer's checks here; it is the controlling side, so a controlled peer is no conflict.
    public var isControlling = false

    public private(set) var tuples: [Tuple] = []
    public private(set) var selectedPath: MediaPath?
    /// The selected tuple's remote address.
    public var selectedTuple: SocketAddress? { selectedPath?.remote }
    /// True once a USE-CANDIDATE request chose the selected tuple.
    public private(set) var isNominated = false
    /// When the last authenticated request arrived on the selected tuple (or creation time).
    public var lastConsentMicros: UInt64 { consentMicros }
    /// Private storage: refreshed for every packet received, and a public stored property is
    /// reached under a dynamic exclusivity check each time (docs/design.md, hot-path rule 8).
    private var consentMicros: UInt64

    private var expectedUsername: [UInt8]

    public init(localUfrag: String, localPassword: String, remoteUfrag: String?, now: UInt64) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.remoteUfrag = remoteUfrag
        integrityKey = STUNIntegrityKey(password: localPassword)
        expectedUsername = ICELiteServer.username(local: localUfrag, remote: remoteUfrag)
        consentMicros = now
        tuples.reserveCapacity(ICELiteServer.maxTuples)
    }

    /// "local:remote" when the remote ufrag is known, "local:" when it is not.
    private static func username(local: String, remote: String?) -> [UInt8] {
        Array(local.utf8) + [UInt8(ascii: ":")] + Array((remote ?? "").utf8)
    }

    /// The receiver's ufrag in a binding request's USERNAME ("<receiver>:<sender>"), as a view
    /// into the datagram: what a worker looks its transports up by. Nil if not a STUN request
    /// with a USERNAME.
    public static func localUfrag(inBindingRequest datagram: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let message = try? STUNMessage(parsing: datagram), message.type == .bindingRequest else { return nil }
        return message.usernameLocalFragment
    }

    /// A binding request from UDP address `source` (tests, and callers without a worker).
    public func handleBindingRequest(_ message: STUNMessage, from source: SocketAddress, now: UInt64,
                                     reply: UnsafeMutableRawBufferPointer) -> ICEResult {
        handleBindingRequest(message, from: .udp(socket: -1, remote: source), now: now, reply: reply)
    }

    /// Checks and answers one binding request that arrived on `path`. The reply, if any, is
    /// written to `reply`; 128 bytes always suffice.
    public func handleBindingRequest(_ message: STUNMessage, from path: MediaPath, now: UInt64,
                                     reply: UnsafeMutableRawBufferPointer) -> ICEResult {
        let source = path.remote
        guard message.type == .bindingRequest else { return .drop(.notBindingRequest) }
        guard let username = message.username else { return .drop(.missingUsername) }
        guard message.messageIntegrityOffset != nil else { return .drop(.missingIntegrity) }
        if message.fingerprintOffset != nil, !message.checkFingerprint() { return .drop(.badFingerprint) }
        guard usernameMatches(username) else { return .drop(.usernameMismatch) }
        guard message.checkMessageIntegrity(key: integrityKey) else { return .drop(.badIntegrity) }

        // A lite agent is always controlled and cannot switch roles: a peer that also claims the
        // controlled role gets 487 so that it switches (RFC 8445 section 7.3.1.1). The client
        // role cannot switch either, the other way round.
        let conflict = isControlling
            ? message.iceControlling != nil && message.iceControlled == nil
            : message.iceControlled != nil && message.iceControlling == nil
        if conflict {
            guard let length = STUNMessageWriter.bindingErrorResponse(
                into: reply, transactionID: message.transactionID,
                code: 487, reason: "Role Conflict", key: integrityKey)
            else { return .drop(.replyBufferTooSmall) }
            return .respond(length: length, tupleChange: .none)
        }

        guard let length = STUNMessageWriter.bindingSuccessResponse(
            into: reply, transactionID: message.transactionID, mappedAddress: source, key: integrityKey)
        else { return .drop(.replyBufferTooSmall) }
        return .respond(length: length, tupleChange: record(path, nominating: message.useCandidate, now: now))
    }

    private func usernameMatches(_ username: UnsafeRawBufferPointer) -> Bool {
        expectedUsername.withUnsafeBytes { expected in
            if remoteUfrag != nil {
                guard username.count == expected.count else { return false }
            } else {
                // Remote ufrag unknown: accept any sender part after "local:".
                guard username.count >= expected.count else { return false }
            }
            for i in 0..<expected.count where username[i] != expected[i] { return false }
            return true
        }
    }

    private func record(_ source: MediaPath, nominating: Bool, now: UInt64) -> ICETupleChange {
        var change = ICETupleChange.none
        if let index = tuples.firstIndex(where: { $0.path == source }) {
            tuples[index].lastRequestMicros = now
        } else if tuples.count < ICELiteServer.maxTuples {
            tuples.append(Tuple(path: source, lastRequestMicros: now))
            change = .added
        } else if nominating, let oldest = oldestUnselectedTupleIndex() {
            tuples[oldest] = Tuple(path: source, lastRequestMicros: now)
            change = .added
        } else {
            return .none
        }

        if nominating, !isNominated || selectedPath != source {
            isNominated = true
            selectedPath = source
            change = .selected
        } else if selectedPath == nil {
            // Before nomination the first authenticated tuple may carry media (RFC 8445 7.3.1.5
            // lets a lite agent use any valid pair; browsers start DTLS before nominating).
            selectedPath = source
            change = .selected
        }
        if selectedPath == source { consentMicros = now }
        return change
    }

    /// A TCP connection that was a tuple closed: it can carry nothing more. When it was the
    /// selected one, nothing is selected until the peer's next check picks a tuple.
    public func removePath(_ path: MediaPath) {
        tuples.removeAll { $0.path == path }
        if selectedPath == path {
            selectedPath = nil
            isNominated = false
        }
    }

    private func oldestUnselectedTupleIndex() -> Int? {
        var result: Int?
        for (index, tuple) in tuples.enumerated() where tuple.path != selectedPath {
            if let r = result, tuples[r].lastRequestMicros <= tuple.lastRequestMicros { continue }
            result = index
        }
        return result
    }

    /// Whether media from `address` may be accepted: it passed a connectivity check. A worker
    /// that maps addresses to transports should confirm with this, since tuples can be replaced.
    public func hasTuple(_ address: SocketAddress) -> Bool {
        tuples.contains { $0.address == address }
    }

    /// Authenticated media from the selected tuple (SRTP that decrypted) also proves the peer is
    /// there: a few lost consent checks must not end a stream that is flowing.
    public func refreshConsent(now: UInt64) {
        if now > consentMicros { consentMicros = now }
    }

    /// RFC 7675: consent is lost when no authenticated request arrived on the selected tuple for
    /// `timeoutMicros` (30 s by default; browsers check about every 5 s).
    public func isConsentExpired(now: UInt64, timeoutMicros: UInt64 = 30_000_000) -> Bool {
        now > consentMicros && now - consentMicros > timeoutMicros
    }
}
