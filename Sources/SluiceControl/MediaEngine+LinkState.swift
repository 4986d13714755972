import SluiceMedia
import SluiceVocabulary

/// A relayed stream's state across nodes (docs/cluster.md, "Link messages"): the origin's
/// links carry its mute state to their edges, whose players get the same `audioMuted`,
/// `videoUnmuted`, ... events (with the same `by`) as the origin's own players.
extension MediaEngine {
    /// The stream's mute state as a link tells it.
    static func linkMute(_ entry: StreamEntry) -> LinkMuteState {
        LinkMuteState(audioByPublisher: entry.audioMute.byPublisher, audioByServer: entry.audioMute.byServer,
                      videoByPublisher: entry.videoMute.byPublisher, videoByServer: entry.videoMute.byServer)
    }

    /// Origin: a mute of `name` changed; its links tell their edges.
    func muteChangedForLinks(_ name: String) {
        guard let entry = streams[name], originLinks.values.contains(where: { $0.stream == name }) else { return }
        let mute = Self.linkMute(entry)
        let home = workerIndex(for: name)
        let media = workerStreams[home]
        workers[home].execute { media.setLinkMute(name, mute) }
    }

    /// Edge: the origin's mute state of a stream this node relays changed.
    func linkMuted(_ handle: StreamHandle, flags: UInt8) {
        guard let name = linkHandles[handle], edgeLinkState[name]?.handle == handle,
              var entry = streams[name] else { return }
        let mute = LinkMuteState(flags: flags)
        let states: [(MediaKind, MuteState)] = [
            (.audio, MuteState(byPublisher: mute.audioByPublisher, byServer: mute.audioByServer)),
            (.video, MuteState(byPublisher: mute.videoByPublisher, byServer: mute.videoByServer)),
        ]
        for (kind, state) in states {
            let before = entry.mute(kind)
            guard state != before else { continue }
            entry.setMute(kind, state)
            streams[name] = entry
            guard state.muted != before.muted else { continue }
            let by: EventWords.MuteSource = state.byServer != before.byServer ? .server : .publisher
            applyMute(stream: name, kind: kind, by: by, muted: state.muted)
        }
    }
}
