import SluiceVocabulary

/// What every node is told of a call with each message from its home: enough to notify its
/// own sessions, to log the call's end if the home dies, and to pick which node does that.
public struct CallSummary: Sendable, Equatable {
    public var id: String
    /// The node whose book keeps the call: the caller's.
    public var home: String
    public var appKey: String
    public var caller: String
    public var callee: String
    public var video: Bool
    public var audio: Bool
    public var customJSON: String
    public var startedAt: Int64
    public var answeredAt: Int64?
    /// The nodes of the sessions the call involves now (ringing ones, then the devices),
    /// the home left out.
    public var nodes: [String]

    public init(id: String, home: String, appKey: String, caller: String, callee: String, video: Bool, audio: Bool,
                customJSON: String, startedAt: Int64, answeredAt: Int64?, nodes: [String]) {
        self.id = id
        self.home = home
        self.appKey = appKey
        self.caller = caller
        self.callee = callee
        self.video = video
        self.audio = audio
        self.customJSON = customJSON
        self.startedAt = startedAt
        self.answeredAt = answeredAt
        self.nodes = nodes
    }

    public init(_ call: Call, home: String, customJSON: String, nodes: [String]) {
        self.init(id: call.id, home: home, appKey: call.appKey, caller: call.caller, callee: call.callee,
                  video: call.video, audio: call.audio, customJSON: customJSON, startedAt: call.startedAt,
                  answeredAt: call.answeredAt, nodes: nodes)
    }

    public func stream(_ side: CallSide) -> String { CallStreamName.make(callID: id, side: side) }
    public func user(_ side: CallSide) -> String { side == .caller ? caller : callee }
}

/// The calls of other nodes' books that sessions of this node take part in (docs/cluster.md,
/// "Calls across nodes"): learnt from the home's messages, so that this node lets its device
/// publish and play the call's streams, sends its sessions' methods and media to the home, lists
/// the calls in its presence (`busy` elsewhere), and ends a call here when its home dies.
/// Pure, with its clock given, like the book.
public final class CallMirrors {
    public struct Mirror: Sendable, Equatable {
        public var summary: CallSummary
        public var status: CallStatus
        /// This node's sessions told of the call, each with its side.
        public var sessions: [SessionID: CallSide] = [:]
        /// This node's device of a side, from the home's status that named its media.
        public var devices: [CallSide: SessionID] = [:]
        var forgetAt: UInt64 = .max
    }

    let monoMicros: () -> UInt64
    let memoryMicros: UInt64
    public private(set) var mirrors: [String: Mirror] = [:]

    public init(monoMicros: @escaping () -> UInt64, endedCallMemorySeconds: Int = 60) {
        self.monoMicros = monoMicros
        memoryMicros = UInt64(max(1, endedCallMemorySeconds)) * 1_000_000
    }

    public func mirror(_ id: String) -> Mirror? { mirrors[id] }

    /// The home told `session` of the call: ringing (`incomingCall`), or a status with the
    /// media `side` of a device, or the end (for that session only, with `otherDeviceAccepted`).
    public func told(_ session: SessionID, summary: CallSummary, side: CallSide, status: CallStatus, media: CallSide?,
                     endResult: CallEndResult? = nil) {
        var mirror = mirrors[summary.id] ?? Mirror(summary: summary, status: .ringing)
        mirror.summary = summary
        mirror.sessions[session] = side
        if let media { mirror.devices[media] = session }
        guard status == .ended else {
            mirror.status = status
            mirrors[summary.id] = mirror
            return
        }
        mirror.sessions[session] = nil
        mirror.devices = mirror.devices.filter { $0.value != session }
        if endResult != .otherDeviceAccepted {
            mirror.status = .ended
            mirror.devices = [:]
        }
        if mirror.status == .ended || mirror.sessions.isEmpty { mirror.forgetAt = monoMicros() + memoryMicros }
        mirrors[summary.id] = mirror
    }

    /// The home ended the call's media here (its end, or a stop of the streams).
    public func mediaEnded(_ id: String) {
        mirrors[id]?.devices = [:]
    }

    /// Whether `session` may publish (`publish: true`) or play a reserved call `stream`: only a
    /// device of a call this node mirrors, its own side's stream to publish and the other's to play.
    public func mayUse(stream: String, publish: Bool, session: SessionID) -> Bool {
        guard let (id, side) = CallStreamName.parse(stream), let mirror = mirrors[id], mirror.status != .ended else {
            return false
        }
        return mirror.devices[publish ? side : side.other] == session
    }

    /// The calls not ended that `session` is told of (for its presence).
    public func activeCalls(of session: SessionID) -> Set<String> {
        Set(mirrors.values.filter { $0.status != .ended && $0.sessions[session] != nil }.map(\.summary.id))
    }

    /// The mirrored call a session of this node acts in, and its home.
    public func home(of id: String) -> String? {
        guard let mirror = mirrors[id], mirror.status != .ended else { return nil }
        return mirror.summary.home
    }

    /// The calls whose home is not among `liveNodes` any more: ended here, each once. `logs`
    /// says whether this node writes the end to the log and sends its hooks: the first live
    /// node of the call's nodes in name order does, so one node does it however many rang.
    public func homesLost(liveNodes: Set<String>, me: String) -> [(mirror: Mirror, logs: Bool)] {
        var lost: [(Mirror, Bool)] = []
        for id in mirrors.keys.sorted() {
            guard var mirror = mirrors[id], mirror.status != .ended, !liveNodes.contains(mirror.summary.home) else { continue }
            let writer = mirror.summary.nodes.filter { $0 == me || liveNodes.contains($0) }.min()
            lost.append((mirror, writer == me))
            mirror.status = .ended
            mirror.devices = [:]
            mirror.forgetAt = monoMicros() + memoryMicros
            mirrors[id] = mirror
        }
        return lost
    }

    /// Forgets calls ended a while ago; call it a few times a second.
    public func tick() {
        let now = monoMicros()
        mirrors = mirrors.filter { $0.value.forgetAt > now }
    }

    /// A session of this node ended: it is told nothing more.
    public func sessionEnded(_ session: SessionID) {
        for id in mirrors.keys where mirrors[id]?.sessions[session] != nil {
            mirrors[id]?.sessions[session] = nil
        }
    }
}
