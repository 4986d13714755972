/// Dynacast for one simulcast publisher: which of its layers have a taker, so that it can stop
/// encoding and sending the others (docs/protocol.md section 6, "Dynacast"). Pure: the
/// producer hands it the stream's wanted layers (`Router.wantedVideoLayers`, the union over
/// every worker, edge link and recording) and reports what it returns.
///
/// A layer without a taker is paused only after `graceMicros`, so a player passing through
/// it on a switch, or leaving and coming back, does not make the publisher stop and restart
/// an encoder (each restart costs a key frame). A layer wanted again is resumed at once. The
/// lowest layer is never paused: a player always has something to start on.
struct LayerPauses {
    static let graceMicros: UInt64 = 3_000_000

    /// When each layer last had a taker.
    private var lastWanted: [UInt64]
    /// The layers told to the publisher as wanted (bit i: layer i); all at first, since the
    /// publisher starts by sending every encoding.
    private(set) var told: UInt32

    init(layerCount: Int, now: UInt64) {
        lastWanted = Array(repeating: now, count: layerCount)
        told = layerCount >= 32 ? .max : (1 << UInt32(layerCount)) - 1
    }

    /// The layers with a taker are `wanted`; `lowest` is never paused. Returns the layers to
    /// tell the publisher when they changed, else nil.
    mutating func update(wanted: UInt32, lowest: Int, now: UInt64) -> UInt32? {
        var keep: UInt32 = 0
        for i in lastWanted.indices {
            let bit: UInt32 = 1 << UInt32(i)
            if wanted & bit != 0 || i == lowest { lastWanted[i] = now }
            if now &- lastWanted[i] < Self.graceMicros { keep |= bit }
        }
        guard keep != told else { return nil }
        told = keep
        return keep
    }
}
