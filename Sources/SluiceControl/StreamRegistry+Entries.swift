import SluiceDataChannel
import SluiceMedia
import SluiceVocabulary

/// What the registry keeps of each stream and handle, and what it tells the other parts.
extension StreamRegistry {
    struct StreamEntry {
        var publisher: StreamHandle?
        var publisherTracks: (audio: TrackParameters?, video: TrackParameters?) = (nil, nil)
        var players: [StreamHandle] = []
        var audioMute = MuteState()
        var videoMute = MuteState()
        /// Origin: the data channel rules of the publisher's app, when its publish has data
        /// channels: what a relay link's data follows (`OriginLinks`).
        var publisherData: DataChannelPolicy?

        func mute(_ kind: MediaKind) -> MuteState { kind == .audio ? audioMute : videoMute }

        mutating func setMute(_ kind: MediaKind, _ state: MuteState) {
            if kind == .audio { audioMute = state } else { videoMute = state }
        }
    }

    struct HandleEntry {
        var session: SessionID
        var stream: String
        var role: StreamRole
        var wait: Bool
        var worker: Int
        var announcedPublishing = false
        /// A player's last status was PLAYING: a new source (a relay link made again, on an
        /// edge) sends no second one; an UNPUBLISHED (a waiting player's) clears it.
        var announcedPlaying = false
        /// A player's own mute of what it receives.
        var playerMuted: Set<MediaKind> = []
        /// The handle has an endpoint in the SCTP stack, which its end must close. Only such
        /// handles send the stack a close: one for a handle it never saw would wait in its
        /// inbox for good when no data channel ever started the stack's thread.
        var dataChannels = false
    }

    /// A stream's publisher, as a relay link or a recording of the stream needs it.
    struct Publisher {
        var handle: StreamHandle
        var session: SessionID
        var worker: Int
        var tracks: (audio: TrackParameters?, video: TrackParameters?)
        var data: DataChannelPolicy?
    }

    /// What a handle's end left of its stream, for the relay links: an edge drops its link of
    /// a stream with no one left, and carries data only while a player here has data channels.
    struct Ended {
        var stream: String
        /// No publisher and no player is left: the entry is gone.
        var streamGone: Bool
        /// The handle had data channels.
        var dataChannels: Bool
    }
}
