import SluiceRTP

/// The edge's side of "Layers on a link" (docs/cluster.md): the video layers its players need
/// of a relayed stream, as it tells the origin (`RTCPLinkLayers`). A new serial per change,
/// sent at once; the same request again every `resendMicros`, so a lost one is repaired (the
/// origin takes a repeat as a no-op). Kept by the link's producer, worker thread only.
struct LinkLayerRequest {
    static let resendMicros: UInt64 = 250_000

    private(set) var serial: UInt32 = 0
    /// The mask last sent; nil before the first (the origin then forwards every layer).
    private(set) var sent: UInt32?
    private var nextSend: UInt64 = 0

    /// The request to send now for `mask` (the players' need as computed now), or nil.
    mutating func due(mask: UInt32, now: UInt64) -> (serial: UInt32, mask: UInt32)? {
        if mask != sent {
            serial &+= 1
            sent = mask
        } else if now < nextSend {
            return nil
        }
        nextSend = now &+ Self.resendMicros
        return (serial, mask)
    }

    /// Whether a periodic resend is due (so the caller recomputes the mask only then or on a
    /// change it was told of).
    func resendDue(now: UInt64) -> Bool { sent == nil || now >= nextSend }

    /// The layers one player needs: the one it forwards and the one it is switching to. A
    /// player with no layer chosen yet starts on the first key frame of any, so it needs all;
    /// one whose video is off needs none.
    static func layers(current: Int?, target: Int, videoEnabled: Bool) -> UInt32 {
        guard videoEnabled else { return 0 }
        var bits: UInt32 = target == Int.max ? .max : bit(target)
        if let current { bits |= bit(current) }
        return bits
    }

    @inline(__always)
    static func bit(_ layer: Int) -> UInt32 { layer >= 0 && layer < 32 ? 1 << UInt32(layer) : 0 }
}
