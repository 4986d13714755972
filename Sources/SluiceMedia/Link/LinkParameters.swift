import SluiceTransport
import SluiceVocabulary

/// What the origin's worker builds one relay link from (docs/cluster.md, "Relay links"): the
/// transport toward the edge (ICE-lite and DTLS server, as for a player), and the SSRC each
/// kind and layer goes out on. The publisher's payload types and header extension ids pass
/// through unchanged; the edge was told them in the link's answer.
package struct LinkParameters: Sendable {
    package var handle: StreamHandle
    package var stream: String
    package var transport: TransportParameters
    package var audioSSRC: UInt32?
    /// One per simulcast layer, lowest first.
    package var videoSSRCs: [UInt32]
    /// The stream's mute state when the link opens; later changes come by `setMute`.
    package var mute: LinkMuteState

    package init(handle: StreamHandle, stream: String, transport: TransportParameters, audioSSRC: UInt32?,
                 videoSSRCs: [UInt32], mute: LinkMuteState = LinkMuteState()) {
        self.mute = mute
        self.handle = handle
        self.stream = stream
        self.transport = transport
        self.audioSSRC = audioSSRC
        self.videoSSRCs = videoSSRCs
    }
}
