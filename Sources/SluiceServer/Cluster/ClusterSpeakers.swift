import SluiceCluster
import SluiceSignaling

extension Server {
    /// Speakers across nodes (docs/cluster.md, "Speakers across nodes"): this node's streams'
    /// levels go to the exchange as signaling hands them over, and the other nodes' come back
    /// to signaling's followers after each read.
    static func connectSpeakers(_ exchange: LevelExchange, to signaling: SignalingServer) {
        signaling.sessions.publishSpeakerLevels { levels in
            exchange.setLocal(levels.map { LevelRecord.Entry(stream: $0.stream, level: $0.level, voice: $0.voice, muted: $0.muted) })
        }
        let inbox = signaling.sessions.remoteSpeakerLevels
        let wake = signaling.wakeFromAnyThread
        exchange.onRemote { records in
            inbox.put(records.flatMap { record in
                record.entries.map { SpeakerLevel(stream: $0.stream, level: $0.level, voice: $0.voice, muted: $0.muted) }
            })
            wake()
        }
    }
}
