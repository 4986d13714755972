import SluiceRTP

/// A stream's mute state as a relay link tells it (`RTCPLinkState.Mute`'s bits), in the
/// control plane's words: who muted each kind. The control plane hands it to the origin's
/// links and reads it back from the edge's `WorkerEvent.linkMuted`, without knowing the wire.
package struct LinkMuteState: Equatable, Sendable {
    package var audioByPublisher = false
    package var audioByServer = false
    package var videoByPublisher = false
    package var videoByServer = false

    package init(audioByPublisher: Bool = false, audioByServer: Bool = false,
                 videoByPublisher: Bool = false, videoByServer: Bool = false) {
        self.audioByPublisher = audioByPublisher
        self.audioByServer = audioByServer
        self.videoByPublisher = videoByPublisher
        self.videoByServer = videoByServer
    }

    package init(flags: UInt8) {
        let mute = RTCPLinkState.Mute(rawValue: flags)
        self.init(audioByPublisher: mute.contains(.audioByPublisher), audioByServer: mute.contains(.audioByServer),
                  videoByPublisher: mute.contains(.videoByPublisher), videoByServer: mute.contains(.videoByServer))
    }

    var wire: RTCPLinkState.Mute {
        var mute: RTCPLinkState.Mute = []
        if audioByPublisher { mute.insert(.audioByPublisher) }
        if audioByServer { mute.insert(.audioByServer) }
        if videoByPublisher { mute.insert(.videoByPublisher) }
        if videoByServer { mute.insert(.videoByServer) }
        return mute
    }
}
