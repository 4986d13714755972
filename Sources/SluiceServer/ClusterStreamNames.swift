import Dispatch
import SluiceCluster
import SluiceSignaling

/// Signaling's `StreamNameRegistry` over this node's `ClusterMember`: publish claims go to Redis
/// on the member's claim lane (short timeout, no wait at all while Redis is known to be away),
/// and the signaling thread's load figures go into the node's heartbeat record.
///
/// It also wakes the signaling thread once a second, so the figures are handed over while
/// nothing else happens there (the service thread runs only when woken).
final class ClusterStreamNames: StreamNameRegistry {
    private let member: ClusterMember
    private let workers: Int
    private var ticker: DispatchSourceTimer?

    init(member: ClusterMember, workers: Int) {
        self.member = member
        self.workers = workers
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
        member.release(stream: stream)
    }

    func report(sessions: Int, streams: Int, players: Int) {
        member.setFigures(ClusterMember.Figures(workers: workers, sessions: sessions, streams: streams, players: players))
    }

    /// Wakes `signaling` every second until `stop()`.
    func start(waking signaling: SignalingServer) {
        guard ticker == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "sluice-cluster-figures"))
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(100))
        timer.setEventHandler { [weak signaling] in signaling?.wake() }
        timer.resume()
        ticker = timer
    }

    func stop() {
        ticker?.cancel()
        ticker = nil
    }
}
