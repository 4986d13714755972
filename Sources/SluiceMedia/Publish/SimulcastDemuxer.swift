import SluiceRTP

/// Tells a producer's video packets apart by layer: by SSRC once known (SSRC-based simulcast
/// announces them in `a=ssrc-group:SIM`), else by the rid header extension (RID-based), else,
/// with one layer, by payload type. A layer's SSRC is learned from its first packet.
enum SimulcastDemuxer {
    @inline(__always)
    static func layer(ssrc: UInt32, payloadType: UInt8, rid: RTPToken?, mediaPayloadType: UInt8,
                      layers: inout [VideoLayer]) -> Int? {
        for i in layers.indices where layers[i].ssrc == ssrc { return i }
        guard payloadType == mediaPayloadType else { return nil }
        if layers.count > 1 {
            guard let rid else { return nil }
            for i in layers.indices where layers[i].rid == rid && layers[i].ssrc == nil {
                layers[i].ssrc = ssrc
                return i
            }
            return nil
        }
        guard !layers.isEmpty, layers[0].ssrc == nil else { return nil }
        layers[0].ssrc = ssrc
        return 0
    }

    /// The layer an RTX packet repairs: by its SSRC once known, else its repaired-rid, else
    /// (one layer) the only one.
    static func rtxLayer(ssrc: UInt32, repairedRid: RTPToken?, layers: inout [VideoLayer]) -> Int? {
        for i in layers.indices where layers[i].rtxSSRC == ssrc { return i }
        if layers.count > 1 {
            guard let repairedRid else { return nil }
            for i in layers.indices where layers[i].rid == repairedRid {
                layers[i].rtxSSRC = ssrc
                return i
            }
            return nil
        }
        guard !layers.isEmpty else { return nil }
        layers[0].rtxSSRC = ssrc
        return 0
    }
}
