import SluiceControl
import SluiceJSON
import SluiceVocabulary

/// `speakers`, and the `activeSpeakers` and `dominantSpeaker` notifications (docs/protocol.md
/// section 6, "Speakers"): which sessions follow which streams, the audio levels of the
/// streams published here (`MediaEvent.audioLevel`) and on other nodes (`remoteLevels`), and
/// each follower's `SpeakerDetector`, run at most every `evaluationMicros` on the service
/// thread. Levels wake that thread: a stream near speech reports every 100 ms, and the other
/// nodes' levels come every 50 ms.
final class SpeakerHandler {
    let table: SessionTable
    private var local: [String: SpeakerLevel] = [:]
    private var remote: [String: SpeakerLevel] = [:]
    private var followers: [SessionID: SpeakerFollower] = [:]
    private var lastEvaluation: UInt64 = 0
    private var localChanged = false
    /// This node's levels for the other nodes (the server sets it with a cluster): called
    /// with every stream's when any changed, at most every `evaluationMicros`.
    var publishLocal: (([SpeakerLevel]) -> Void)?
    /// The other nodes' levels, put by the cluster's thread.
    let remoteInbox = SpeakerLevelInbox()

    /// Wakes come with every level report and every read of the other nodes' levels; this
    /// bounds the work when they crowd, while a change waits at most this long.
    static let evaluationMicros: UInt64 = 20_000
    /// Names one `speakers` call may list.
    static let maxNames = 100

    init(table: SessionTable) {
        self.table = table
    }

    /// `speakers {names?, prefix?}`: follows the set from now on (replacing any earlier one);
    /// neither (or an empty list and no prefix) stops following.
    func speakers(_ params: RPCParams, session: RPCSession, sessionID: SessionID) throws(RPCError) -> JSONValue {
        let names = try Self.names(params)
        let prefix = try Self.prefix(params)
        guard !names.isEmpty || prefix != nil else {
            followers[sessionID] = nil
            return [:]
        }
        for name in names where !session.grants.allowsPlay(name) { throw .notGranted("play of '\(name)'") }
        followers[sessionID] = SpeakerFollower(names: Set(names), prefix: prefix)
        return [:]
    }

    private static func names(_ params: RPCParams) throws(RPCError) -> [String] {
        guard let value = params.members["names"], !value.isNull else { return [] }
        guard let items = value.arrayValue, items.count <= maxNames else {
            throw .invalidParams("'names' must be an array of at most \(maxNames) stream names")
        }
        var names: [String] = []
        for (index, item) in items.enumerated() {
            guard let name = item.stringValue, RPCParams.isValidStreamName(name) else {
                throw .invalidParams("'names[\(index)]' must be 1 to 128 characters from [A-Za-z0-9._~-]")
            }
            names.append(name)
        }
        return names
    }

    private static func prefix(_ params: RPCParams) throws(RPCError) -> String? {
        guard let prefix = try params.optionalString("prefix") else { return nil }
        guard RPCParams.isValidStreamName(prefix) else {
            throw .invalidParams("'prefix' must be 1 to 128 characters from [A-Za-z0-9._~-]")
        }
        return prefix
    }

    /// The levels of the streams published here, and their end.
    func note(_ event: MediaEvent) {
        switch event {
        case let .audioLevel(stream, level, muted):
            var entry = local[stream] ?? SpeakerLevel(stream: stream, level: -127, voice: -127, muted: false)
            if let level {
                entry.level = level.smoothed
                entry.voice = level.voice
            }
            entry.muted = muted
            local[stream] = entry
            localChanged = true
        case let .streamStatus(_, _, stream, role, _, _, ends) where role == .publish && ends:
            if local.removeValue(forKey: stream) != nil { localChanged = true }
        default:
            break
        }
    }

    /// The other nodes' streams' levels, as last read: the whole set, replacing the last.
    private func remoteLevels(_ levels: [SpeakerLevel]) {
        remote = Dictionary(levels.map { ($0.stream, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func sessionEnded(_ id: SessionID) {
        followers[id] = nil
    }

    var followerCount: Int { followers.count }

    /// Service thread, at each wake: runs every follower's detector and tells what changed.
    func tick() {
        let now = table.clock()
        guard now &- lastEvaluation >= Self.evaluationMicros else { return }
        lastEvaluation = now
        if let levels = remoteInbox.take() { remoteLevels(levels) }
        if localChanged {
            localChanged = false
            publishLocal?(local.values.sorted { $0.stream < $1.stream })
        }
        for id in Array(followers.keys) {
            guard let session = table.connected[id] else {
                followers[id] = nil
                continue
            }
            evaluate(&followers[id]!, session: session, now: now)
        }
    }

    private func evaluate(_ follower: inout SpeakerFollower, session: RPCSession, now: UInt64) {
        var levels: [String: Double] = [:]
        var voices: [String: Double] = [:]
        var muted = Set<String>()
        for source in [local, remote] {
            for (name, entry) in source where follower.follows(name) && session.grants.allowsPlay(name) {
                levels[name] = entry.level
                voices[name] = entry.voice
                if entry.muted { muted.insert(name) }
            }
        }
        if let change = follower.detector.update(levels: levels, voices: voices, muted: muted, now: now) {
            session.send(RPCMessage.notification("dominantSpeaker", ["name": change.map { .string($0) } ?? .null]))
        }
        let active = follower.detector.speakers(levels: levels)
        let names = active.map(\.name)
        guard names != follower.sentActive, now &- follower.activeSentAt >= SpeakerFollower.activeIntervalMicros else { return }
        follower.sentActive = names
        follower.activeSentAt = now
        session.send(RPCMessage.notification("activeSpeakers", ["speakers": .array(active.map { speaker in
            ["name": .string(speaker.name), "level": JSONValue(speaker.level)]
        })]))
    }
}
