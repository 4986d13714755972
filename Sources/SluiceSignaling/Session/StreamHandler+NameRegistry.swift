import SluiceControl
import SluiceVocabulary
import SluiceLog

/// The name-in-use rule across a cluster (docs/protocol.md section 6, **Cluster**): a publish
/// claims its name in `nameRegistry` before the engine sees it, and the claim is given back
/// when the publish handle ends, whichever way (stop, session end, kick, failure, terminate):
/// every end comes through the engine's final status, which `drainMediaEvents` passes here.
extension StreamHandler {
    /// Claims `stream` for a publish; true when a new claim was made (the caller then owns it
    /// and must give it back if the publish fails). False without a registry, and when a
    /// publisher of this node holds the name already: the engine answers 1003 for that one,
    /// and the claim stays with the live publisher.
    func claimName(_ stream: String, session: RPCSession) throws(RPCError) -> Bool {
        guard let nameRegistry, claimedNames[stream] == nil else { return false }
        switch nameRegistry.claim(stream: stream, app: session.appKey ?? "") {
        case .claimed:
            return true
        case .inUse(let node):
            table.log.info("publish of \(stream) refused: node \(node) publishes it", [.stream(stream), .peer(node)])
            throw RPCError(MediaError.streamNameInUse)
        case .unavailable(let why):
            table.log.info("publish of \(stream) refused: the cluster's names cannot be checked (\(why))", [.stream(stream)])
            throw RPCError.clusterUnavailable
        }
    }

    /// Gives back a name whose publish never started.
    func releaseName(_ stream: String) {
        nameRegistry?.release(stream: stream)
    }

    /// Gives back the name of a publish handle that has ended.
    func releaseName(after event: MediaEvent) {
        guard nameRegistry != nil,
              case let .streamStatus(_, handle, stream, role, _, _, ends) = event,
              ends, role == .publish, claimedNames[stream] == handle else { return }
        claimedNames[stream] = nil
        releaseName(stream)
    }

    /// Each wake of the signaling thread: lets the registry do what it was woken for, then
    /// hands it the load figures, at most once a second: connected sessions, publish handles,
    /// play handles.
    func reportFigures() {
        guard let nameRegistry else { return }
        nameRegistry.serviceWoke()
        let now = table.clock()
        guard figuresReportedAt == 0 || now &- figuresReportedAt >= 1_000_000 else { return }
        figuresReportedAt = now
        var streams = 0
        var players = 0
        for session in table.connected.values {
            for record in session.handles.values {
                if record.role == .publish { streams += 1 } else { players += 1 }
            }
        }
        nameRegistry.report(sessions: table.connected.count, streams: streams, players: players)
    }
}
