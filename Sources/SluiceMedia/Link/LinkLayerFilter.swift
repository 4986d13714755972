import SluiceVocabulary

/// The origin's side of "Layers on a link" (docs/cluster.md): which video layers a relay link
/// forwards, from the edge's last `RTCPLinkLayers`. Every layer until the edge has said (an
/// edge that never sends one, an older node, gets the whole stream), audio always. A value
/// read per packet (one mask test), written a few times a second off the packet path.
struct LinkLayerFilter {
    /// Bit i: video layer i is forwarded.
    private(set) var mask: UInt32 = .max
    /// The serial of the request `mask` came from; nil before the first.
    private(set) var serial: UInt32?

    @inline(__always)
    func carries(kind: MediaKind, layer: Int) -> Bool {
        kind == .audio || (layer >= 0 && layer < 32 && mask & (1 << UInt32(layer)) != 0)
    }

    /// The edge's request: the layers it wants now that were not forwarded before (each then
    /// needs a key frame), or nil when the request is older than the one held (reordered) and
    /// changes nothing. A repeat of the current request (the edge resends it with its reports)
    /// returns 0.
    mutating func apply(serial: UInt32, mask: UInt32) -> UInt32? {
        if let held = self.serial, Int32(bitPattern: serial &- held) < 0 { return nil }
        let added = mask & ~self.mask
        self.serial = serial
        self.mask = mask
        return added
    }
}
