import SluiceVocabulary

/// A session of a call user on another cluster node, as the cluster's presence lists it.
public struct RemoteSession: Hashable, Sendable {
    public var session: SessionID
    public var user: CallUser
    public var node: String
    /// The calls that session's node knows its user is in (ringing or not yet ended).
    public var calls: Set<String>

    public init(session: SessionID, user: CallUser, node: String, calls: Set<String> = []) {
        self.session = session
        self.user = user
        self.node = node
        self.calls = calls
    }
}

/// The book in a cluster (docs/cluster.md, "Calls across nodes"): a call lives in the book of
/// its caller's node, its home, and the sessions of users on other nodes take part in it as
/// remote sessions. The book learns them from the cluster's presence, which every node writes
/// for its own sessions with each heartbeat: `syncRemote` brings them online and offline like
/// local ones, so `call` rings them, a lost device waits for its user to come back on any node,
/// and `onlineUsers` answers for the whole app. What the book then says to a remote session
/// the signaling layer sends to its node (`node(of:)`).
extension CallBook {
    /// Takes the cluster's presence as it is now: each listed session of another node is
    /// online; one gone since is offline, and lost at once (its calls end `connectionLost`,
    /// no reconnect wait) when its node is gone from `liveNodes` (a dead node's users cannot
    /// come back within the wait on that node). Also takes which calls each remote user is in,
    /// for `busy`.
    public func syncRemote(_ sessions: [RemoteSession], liveNodes: Set<String>) -> [CallEffect] {
        var effects: [CallEffect] = []
        var seen = Set<SessionID>()
        var busy: [CallUser: Set<String>] = [:]
        for entry in sessions {
            seen.insert(entry.session)
            if !entry.calls.isEmpty { busy[entry.user, default: []].formUnion(entry.calls) }
            if remoteNodes[entry.session] == nil && userOf[entry.session] == nil {
                remoteNodes[entry.session] = entry.node
                effects += sessionOnline(entry.session, user: entry.user)
            }
        }
        remoteBusy = busy
        let now = monoMicros()
        remoteGrace = remoteGrace.filter { !seen.contains($0.key) && $0.value > now }
        for (session, node) in remoteNodes.sorted(by: { $0.key < $1.key }) where !seen.contains(session) {
            if remoteGrace[session] != nil && liveNodes.contains(node) { continue }
            remoteNodes[session] = nil
            effects += liveNodes.contains(node) ? sessionOffline(session) : sessionLost(session)
        }
        return effects
    }

    /// A session of another node that acts in a call of this book before the presence listed
    /// it (its node said who it is along with what it did): online from now on.
    public func rememberRemote(_ session: SessionID, user: CallUser, node: String) -> [CallEffect] {
        guard userOf[session] == nil else { return [] }
        remoteNodes[session] = node
        // Its node lists it within a heartbeat or two; until then a listing without it is old.
        remoteGrace[session] = monoMicros() + 3_000_000
        return sessionOnline(session, user: user)
    }

    /// The user of a session the book knows (this node's or another's).
    public func user(of session: SessionID) -> CallUser? { userOf[session] }

    /// The node of a remote session; nil for this node's own (and unknown) sessions.
    public func node(of session: SessionID) -> String? { remoteNodes[session] }

    /// The remote sessions the book knows, for a leak count and for tests.
    public var remoteSessionCount: Int { remoteNodes.count }

    /// A session whose node died: as `sessionOffline`, but a call it was a device of ends
    /// `connectionLost` at once.
    public func sessionLost(_ session: SessionID) -> [CallEffect] {
        let lostIn = userOf[session].map { user in
            (activeCalls[user] ?? []).filter { id in
                guard let call = calls[id] else { return false }
                return call.callerSession == session || call.calleeSession == session
            }
        } ?? []
        var effects = sessionOffline(session)
        for id in lostIn.sorted() { effects += end(id, .connectionLost, by: nil, actor: nil) }
        return effects
    }

    /// The calls `user` is in that this book keeps (for the presence of a local session).
    public func activeCalls(of user: CallUser) -> Set<String> { activeCalls[user] ?? [] }

    /// Whether `user` is in a call another node's book keeps (as that user's node says).
    func isBusyElsewhere(_ user: CallUser) -> Bool {
        // A call of this book is judged by the book itself, and one this node heard end
        // elsewhere is over: a remote node may list either for up to a heartbeat more.
        (remoteBusy[user] ?? []).contains { calls[$0] == nil && endedElsewhereUntil[$0] == nil }
    }

    /// This node heard that a call of another node's book ended (its mirror was told, or its
    /// home died): it busies nobody, whatever a presence a heartbeat old still says.
    public func endedElsewhere(_ id: String) {
        let now = monoMicros()
        endedElsewhereUntil = endedElsewhereUntil.filter { $0.value > now }
        endedElsewhereUntil[id] = now + UInt64(settings.endedCallMemorySeconds) * 1_000_000
    }
}
