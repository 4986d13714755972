import Dispatch
import SluiceCluster
import SluiceControl
import SluiceSignaling

/// Signaling's `StreamNameRegistry` over this node's `ClusterMember`: publish claims go to Redis
/// on the member's claim lane (short timeout, no wait at all while Redis is known to be away),
/// and the signaling thread's load figures go into the node's heartbeat record.
///
/// It also wakes the signaling thread once a second, so the figures are handed over while
/// nothing else happens there (the service thread runs only when woken); that same tick lets
/// the engine check its remote streams (relay links) and retries codecs not yet known. Each
/// heartbeat of the member (every 500 ms) wakes it too, for a check right after the snapshot
/// changed: the players of a dead origin are told without waiting for the next tick.
///
/// A publish's codecs go into its claim's record (docs/cluster.md, "Relay links"), for other
/// nodes to answer their players before a link is up: written when the publish is answered,
/// on the member's claim lane (one command, bounded like the claim itself), so the record has
/// them before the publisher's `PUBLISHING`: a play on any node right after it finds them.
/// When Redis is slow or away, the member writes them with its next refresh instead.
final class ClusterStreamNames: StreamNameRegistry {
    private let member: ClusterMember
    private let workers: Int
    private let media: MediaEngine
    private var ticker: DispatchSourceTimer?
    /// Published names whose codecs the engine did not give yet; asked again each tick.
    private var codecsWanted: Set<String> = []
    /// Set by the member's heartbeat thread when a new snapshot is there; read on the
    /// signaling thread.
    private let checkDue = DueFlag()

    init(member: ClusterMember, workers: Int, media: MediaEngine) {
        self.member = member
        self.workers = workers
        self.media = media
    }

    func claim(stream: String, app: String) -> StreamNameClaim {
        do {
            switch try member.claim(stream: stream, app: app) {
            case .claimed: return .claimed
            case .inUse(let node): return .inUse(byNode: node)
            }
        } catch {
            // A connection error (Redis away or slow), or a key that holds no Sluice record:
            // either way this node cannot know the name is free.
            return .unavailable("\(error)")
        }
    }

    func release(stream: String) {
        codecsWanted.remove(stream)
        member.release(stream: stream)
    }

    func published(stream: String) {
        if !publishCodecs(of: stream) { codecsWanted.insert(stream) }
    }

    /// Once a second on the signaling thread (the engine's control thread).
    func report(sessions: Int, streams: Int, players: Int) {
        member.setFigures(ClusterMember.Figures(workers: workers, sessions: sessions, streams: streams, players: players))
        for stream in codecsWanted where publishCodecs(of: stream) { codecsWanted.remove(stream) }
        if media.remoteStreams != nil { media.checkRemoteStreams() }
    }

    /// Each wake of the signaling thread: a check of the remote streams when a heartbeat
    /// brought a new snapshot. The check reads the cached snapshot only (never Redis).
    func serviceWoke() {
        if checkDue.take(), media.remoteStreams != nil {
            media.checkRemoteStreams()
        }
    }

    /// True when the engine knew the codecs and they went to the member (into Redis at once
    /// when it answers, else with the next refresh).
    private func publishCodecs(of stream: String) -> Bool {
        guard let codecs = media.codecs(of: stream) else { return false }
        member.writeCodecs(ClusterRemoteStreams.recordCodecs(codecs), ofStream: stream)
        return true
    }

    /// Wakes `signaling` every second until `stop()`.
    func start(waking signaling: SignalingServer) {
        guard ticker == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "sluice-cluster-figures"))
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(100))
        let wake = signaling.wakeFromAnyThread
        timer.setEventHandler { wake() }
        timer.resume()
        ticker = timer
        member.onSnapshot { [checkDue] in
            checkDue.set()
            wake()
        }
    }

    func stop() {
        member.onSnapshot(nil)
        ticker?.cancel()
        ticker = nil
    }
}
