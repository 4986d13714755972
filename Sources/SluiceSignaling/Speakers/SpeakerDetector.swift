/// Who is speaking among a set of audio streams, and who holds the floor (the dominant
/// speaker), from their smoothed levels (SluiceMedia's `AudioLevelMeter`, a reading per 100 ms window).
/// Pure: fed the levels at each window, it answers the speakers in order and a change of the
/// dominant one.
///
/// A simpler rule than Volfin and Cohen's (mediasoup's ActiveSpeakerObserver), which scores
/// three time scales of voice activity. A stream speaks while its level is at or above
/// `threshold` and it is not muted. One that has spoken for `hold` without a break may take
/// the floor: at once when nobody holds it, else when the holder has held it for `hold` and
/// is silent now or quieter by `margin`. So a cough or a short "yes" (shorter than `hold`)
/// never takes the floor, two people talking over each other do not swap it at every word,
/// and a hand-over takes about `hold` (the old speaker's level falls 3 dB a window meanwhile,
/// `AudioLevelMeter`). A muted holder loses the floor at once; in silence the last holder
/// keeps it.
struct SpeakerDetector {
    struct Settings: Sendable {
        /// dBov at or above which a stream counts as speaking.
        var threshold: Double = -50
        /// How long a stream must speak without a break to take the floor, and how long a
        /// holder keeps it at least.
        var holdMicros: UInt64 = 500_000
        /// How much louder than a speaking holder a challenger must be.
        var margin: Double = 6
    }

    struct Speaker: Equatable, Sendable {
        var name: String
        var level: Double
    }

    let settings: Settings
    /// When each stream began speaking without a break (absent: silent or muted).
    private var speakingSince: [String: UInt64] = [:]
    private(set) var dominant: String?
    private var floorSince: UInt64 = 0

    init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// The streams' levels now (dBov), and which are muted. Returns the new dominant speaker
    /// when it changed (`.some(nil)`: nobody holds the floor any more), else nil.
    mutating func update(levels: [String: Double], muted: Set<String>, now: UInt64) -> String?? {
        for (name, level) in levels {
            if level >= settings.threshold && !muted.contains(name) {
                if speakingSince[name] == nil { speakingSince[name] = now }
            } else {
                speakingSince[name] = nil
            }
        }
        for name in speakingSince.keys where levels[name] == nil { speakingSince[name] = nil }

        let previous = dominant
        if let holder = dominant, muted.contains(holder) || levels[holder] == nil { dominant = nil }
        if let challenger = loudestReady(now: now, levels: levels) {
            if let holder = dominant {
                let held = now &- floorSince >= settings.holdMicros
                let holderLevel = speakingSince[holder] == nil ? nil : levels[holder]
                if held, holderLevel.map({ levels[challenger]! >= $0 + settings.margin }) ?? true { dominant = challenger }
            } else {
                dominant = challenger
            }
        }
        guard dominant != previous else { return nil }
        floorSince = now
        return .some(dominant)
    }

    /// Those speaking now, loudest first.
    func speakers(levels: [String: Double]) -> [Speaker] {
        speakingSince.keys.compactMap { name in levels[name].map { Speaker(name: name, level: $0) } }
            .sorted { $0.level != $1.level ? $0.level > $1.level : $0.name < $1.name }
    }

    /// The loudest stream, other than the holder, that has spoken for `hold` or more.
    private func loudestReady(now: UInt64, levels: [String: Double]) -> String? {
        var best: (name: String, level: Double)?
        for (name, since) in speakingSince where name != dominant && now &- since >= settings.holdMicros {
            let level = levels[name] ?? -127
            if let current = best, level < current.level || (level == current.level && name > current.name) { continue }
            best = (name, level)
        }
        return best?.name
    }
}
