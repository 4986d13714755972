import SluiceVocabulary

/// The call state machine of docs/protocol.md section 6, "Calls": who is online, every call,
/// and each method's checks and effects. Pure and synchronous: each step returns the
/// `CallEffect`s the signaling layer carries out. Confined to the signaling thread.
///
/// This file holds the state and presence; the methods are in `CallBook+Methods.swift`,
/// the media and timers in `CallBook+Media.swift`, and ends in `CallBook+End.swift`.
public final class CallBook {
    public let settings: CallSettings
    /// Wall clock in ms since the epoch (the log's times).
    let wallMillis: () -> Int64
    /// Monotonic µs (timeouts).
    let monoMicros: () -> UInt64
    let makeCallID: () -> String
    /// Every call until it is forgotten (a minute after its end).
    public internal(set) var calls: [String: Call] = [:]
    /// The caller's `custom`, as compact JSON text.
    var customJSON: [String: String] = [:]
    /// Sessions by user, in the order they connected.
    var online: [CallUser: [SessionID]] = [:]
    /// Each session's user.
    var userOf: [SessionID: CallUser] = [:]
    /// The calls each user is a party of and that have not ended.
    var activeCalls: [CallUser: Set<String>] = [:]
    /// When each session made its calls in the last minute (monotonic µs), oldest first.
    var recentCalls: [SessionID: [UInt64]] = [:]
    /// Sessions of other cluster nodes, by their node (CallBook+Cluster.swift).
    var remoteNodes: [SessionID: String] = [:]
    /// The calls of other nodes' books that users are in, as their nodes' presence says.
    var remoteBusy: [CallUser: Set<String>] = [:]
    /// Remote sessions that acted before the presence listed them, until when a listing
    /// without them is taken as old (monotonic µs).
    var remoteGrace: [SessionID: UInt64] = [:]
    /// Calls of other nodes' books this node heard end, until when to remember it (monotonic µs).
    var endedElsewhereUntil: [String: UInt64] = [:]

    public init(settings: CallSettings = CallSettings(), wallMillis: @escaping () -> Int64,
                monoMicros: @escaping () -> UInt64, makeCallID: @escaping () -> String = CallBook.randomCallID) {
        self.settings = settings
        self.wallMillis = wallMillis
        self.monoMicros = monoMicros
        self.makeCallID = makeCallID
    }

    /// The sizes of the book's tables (a leak test's count; an ended call stays a minute).
    public var tableSizes: [String: Int] {
        ["calls.calls": calls.count, "calls.custom": customJSON.count, "calls.onlineUsers": online.count,
         "calls.userOf": userOf.count, "calls.activeCalls": activeCalls.count, "calls.recentCalls": recentCalls.count,
         "calls.remoteSessions": remoteNodes.count, "calls.remoteBusy": remoteBusy.count,
         "calls.remoteGrace": remoteGrace.count, "calls.endedElsewhere": endedElsewhereUntil.count]
    }

    // MARK: Presence

    /// A session of `user` connected. A call of that user waiting for a lost device is taken
    /// over by it, and a call ringing for the user rings on it too.
    public func sessionOnline(_ session: SessionID, user: CallUser) -> [CallEffect] {
        guard userOf[session] == nil else { return [] }
        userOf[session] = user
        online[user, default: []].append(session)
        var effects: [CallEffect] = []
        for id in (activeCalls[user] ?? []).sorted() {
            guard var call = calls[id], !call.hasEnded, let side = call.side(of: user.name) else { continue }
            if call.lostDeadline[side] != nil {
                call.lostDeadline[side] = nil
                if side == .caller { call.callerSession = session } else { call.calleeSession = session }
                calls[id] = call
                effects.append(.status(session: session, callID: id, status: call.status, by: nil, endResult: nil,
                                       media: call.wasAccepted ? side : nil))
            } else if side == .callee, call.status == .ringing {
                call.ringing.append(session)
                calls[id] = call
                effects.append(.incomingCall(session: session, callID: id))
            }
        }
        return effects
    }

    /// A session ended (its socket closed, it disconnected, it was kicked). A call it was a
    /// device of waits `reconnectSeconds` for the user to come back, then ends `connectionLost`.
    public func sessionOffline(_ session: SessionID) -> [CallEffect] {
        guard let user = userOf.removeValue(forKey: session) else { return [] }
        online[user]?.removeAll { $0 == session }
        if online[user]?.isEmpty == true { online[user] = nil }
        recentCalls[session] = nil
        var effects: [CallEffect] = []
        for id in (activeCalls[user] ?? []).sorted() {
            guard var call = calls[id], !call.hasEnded else { continue }
            call.ringing.removeAll { $0 == session }
            var lostSide: CallSide?
            if call.callerSession == session { lostSide = .caller; call.callerSession = nil }
            if call.calleeSession == session { lostSide = .callee; call.calleeSession = nil }
            calls[id] = call
            guard let side = lostSide else { continue }
            if settings.reconnectSeconds <= 0 {
                effects += end(id, .connectionLost, by: nil, actor: nil)
            } else {
                calls[id]?.lostDeadline[side] = monoMicros() + UInt64(settings.reconnectSeconds) * 1_000_000
            }
        }
        return effects
    }

    /// The users of `appKey` with a session open, sorted, at most `limit`.
    public func onlineUsers(appKey: String, limit: Int = 1000) -> [String] {
        Array(online.keys.filter { $0.appKey == appKey }.map(\.name).sorted().prefix(limit))
    }

    /// The calls not yet ended, over all apps.
    public var activeCallCount: Int { calls.values.filter { !$0.hasEnded }.count }

    public func call(_ id: String) -> Call? { calls[id] }

    public func custom(of id: String) -> String { customJSON[id] ?? "{}" }

    // MARK: Reserved streams

    /// Whether `session` may publish (`publish: true`) or play `stream`, a reserved call name:
    /// only a call's device, its own stream to publish and the other's to play, before the end.
    public func mayUse(stream: String, publish: Bool, session: SessionID) -> Bool {
        guard let (id, side) = CallStreamName.parse(stream), let call = calls[id], !call.hasEnded,
              call.wasAccepted else { return false }
        let device = publish ? call.device(side) : call.device(side.other)
        return device == session
    }

    public static func randomCallID() -> String {
        var generator = SystemRandomNumberGenerator()
        func hex(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return hex(generator.next()) + hex(generator.next())
    }
}
