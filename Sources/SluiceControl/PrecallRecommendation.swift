import SluiceMedia

/// What a client should publish and play with, from a pre-call test's rates
/// (docs/protocol.md section 6, "Pre-call test"): a rung of a 16:9 ladder whose bitrate fits
/// 85% of the uplink less the audio, and a play quality from the downlink.
package struct PrecallRecommendation: Equatable, Sendable {
    package struct Rung: Equatable, Sendable {
        package var width: Int
        package var height: Int
        package var fps: Int
        package var bitrate: Int
    }

    package static let ladder = [
        Rung(width: 1280, height: 720, fps: 30, bitrate: 2500),
        Rung(width: 960, height: 540, fps: 30, bitrate: 1500),
        Rung(width: 640, height: 360, fps: 30, bitrate: 800),
        Rung(width: 480, height: 270, fps: 30, bitrate: 500),
        Rung(width: 320, height: 180, fps: 15, bitrate: 200),
    ]
    static let audioKbps = 40.0
    static let headroom = 0.85
    static let minimumKbps = 50

    package var publish: Rung?
    /// `high`, `medium` or `low`.
    package var playQuality: String?

    package init(uplinkKbps: Double?, downlinkKbps: Double?) {
        if let uplink = uplinkKbps, uplink > 0 {
            let budget = uplink * Self.headroom - Self.audioKbps
            if let rung = Self.ladder.first(where: { Double($0.bitrate) <= budget }) {
                publish = rung
            } else {
                var lowest = Self.ladder[Self.ladder.count - 1]
                lowest.bitrate = min(Int(uplink), max(Self.minimumKbps, Int(budget)))
                publish = lowest
            }
        }
        if let downlink = downlinkKbps, downlink > 0 {
            playQuality = downlink >= 2500 ? "high" : downlink >= 800 ? "medium" : "low"
        }
    }
}
