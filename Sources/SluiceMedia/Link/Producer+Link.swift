import SluiceRTP
import SluiceVocabulary
import SluiceWire

/// The edge's link producer: what its origin tells it on the link (docs/cluster.md, "Link
/// messages"), the silence that ends the link, and the layers its players need, told back
/// ("Layers on a link").
extension Producer {
    /// An APP packet on the link: the origin's stream state. Anything else is ignored.
    func linkMessage(_ bytes: UnsafeRawBufferPointer, now: UInt64) {
        guard let linkState = RTCPLinkState(parsing: bytes) else { return }
        if linkWatch!.arrived(linkState, now: now) {
            report(.linkMuted(parameters.handle, flags: linkState.mute.rawValue))
        }
        // With no video layer wanted (and maybe no audio in the stream) no media comes, by
        // request: the live link's state stands in for it, so the RTP-activity check holds.
        if linkRequest.sent == 0 { state.lastMediaMicros = now }
    }

    /// A silent link fails; the control plane asks its origin for a new one at once.
    func checkLink(now: UInt64) {
        if linkWatch!.hasGoneSilent(now: now) {
            report(.failed(parameters.handle, .rtpActivity))
        }
    }

    /// Tells the origin the video layers this stream's players need, when that changed (a
    /// player chose or reached a layer, came or went, on any worker) and every
    /// `LinkLayerRequest.resendMicros` again. Cheap when neither: a flag and a clock test.
    func sendWantedLayers(now: UInt64) {
        guard transport.isConnected, let router, !state.layers.isEmpty else { return }
        let changed = router.takeWantedLayersChanged()
        guard changed || linkRequest.resendDue(now: now) else { return }
        guard let request = linkRequest.due(mask: router.wantedVideoLayers(), now: now) else { return }
        let message = RTCPLinkLayers(senderSSRC: reporterSSRC, serial: request.serial, mask: request.mask)
        sendRTCP { message.write(into: &$0) }
    }

    /// The origin's figures of a layer this link has not carried lately (its players need it
    /// not): the edge's players choose among every layer the origin has, as its own do.
    func originLayer(_ i: Int, now: UInt64) -> RTCPLinkState.Layer? {
        guard let linkWatch, linkWatch.layers.indices.contains(i), !state.layers[i].isActive(now: now) else {
            return nil
        }
        return linkWatch.layers[i]
    }
}
