import SluiceRTP
import SluiceVocabulary

/// The edge's link producer: what its origin tells it on the link (docs/cluster.md, "Link
/// messages"), and the silence that ends the link.
extension Producer {
    /// An APP packet on the link: the origin's stream state. Anything else is ignored.
    func linkMessage(_ bytes: UnsafeRawBufferPointer, now: UInt64) {
        guard let state = RTCPLinkState(parsing: bytes) else { return }
        if linkWatch!.arrived(state, now: now) {
            report(.linkMuted(parameters.handle, flags: state.mute.rawValue))
        }
    }

    /// A silent link fails; the control plane asks its origin for a new one at once.
    func checkLink(now: UInt64) {
        if linkWatch!.hasGoneSilent(now: now) {
            report(.failed(parameters.handle, .rtpActivity))
        }
    }
}
