/// Who is speaking among a set of audio streams, and who holds the floor (the dominant
/// speaker), from their levels (SluiceMedia's `AudioLevelMeter`: a smoothed level, and each
/// 100 ms window's own mean, the voice). Pure: fed the levels at each evaluation, it answers
/// the speakers in order and a change of the dominant one.
///
/// A simpler rule than Volfin and Cohen's (mediasoup's ActiveSpeakerObserver), which scores
/// three time scales of voice activity. A stream has voice while its window's mean is at or
/// above `threshold` and it is not muted; it speaks from its first window with voice until a
/// gap of more than `gapMicros` (a pause between words is shorter). One that has spoken for
/// `hold` (from its first to its last window with voice) may take the floor: at once when
/// nobody holds it, else when the holder has held it for `hold` and is not speaking or is
/// quieter by `margin` (smoothed levels). So a cough or a short "yes" (shorter than `hold`)
/// never takes the floor, even in silence, two people talking over each other do not swap it
/// at every word, and a hand-over takes about `hold` plus a window. A muted holder loses the
/// floor at once; in silence the last holder keeps it.
///
/// The voice and not the smoothed level decides who speaks: the smoothed level of a cough
/// falls 3 dB a window, so it stays above the threshold for a second after the cough.
struct SpeakerDetector {
    struct Settings: Sendable {
        /// dBov at or above which a window has voice.
        var threshold: Double = -50
        /// How long a stream must speak without a break to take the floor, and how long a
        /// holder keeps it at least. A cough or a "yes" lasts 200 to 400 ms; a speaker who
        /// starts a sentence takes the floor half a second in.
        var holdMicros: UInt64 = 500_000
        /// More than this between two windows with voice ends a stretch of speech: a pause of
        /// two silent windows (200 ms, as between words) does not.
        var gapMicros: UInt64 = 300_000
        /// How much louder than a speaking holder a challenger must be.
        var margin: Double = 6
    }

    struct Speaker: Equatable, Sendable {
        var name: String
        var level: Double
    }

    let settings: Settings
    /// Each speaking stream's stretch of speech: its first and its last window with voice.
    private var speech: [String: (since: UInt64, last: UInt64)] = [:]
    private(set) var dominant: String?
    private var floorSince: UInt64 = 0

    init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// The streams' smoothed levels and voices now (dBov; a stream without a voice given
    /// uses its level), and which are muted. Returns the new dominant speaker when it changed
    /// (`.some(nil)`: nobody holds the floor any more), else nil.
    mutating func update(levels: [String: Double], voices: [String: Double] = [:], muted: Set<String>,
                         now: UInt64) -> String?? {
        for (name, level) in levels {
            guard !muted.contains(name) else {
                speech[name] = nil
                continue
            }
            guard (voices[name] ?? level) >= settings.threshold else { continue }
            if let stretch = speech[name], now &- stretch.last <= settings.gapMicros {
                speech[name] = (stretch.since, now)
            } else {
                speech[name] = (now, now)
            }
        }
        for (name, stretch) in speech where levels[name] == nil || now &- stretch.last > settings.gapMicros {
            speech[name] = nil
        }

        let previous = dominant
        if let holder = dominant, muted.contains(holder) || levels[holder] == nil { dominant = nil }
        if let challenger = loudestReady(levels: levels) {
            if let holder = dominant {
                let held = now &- floorSince >= settings.holdMicros
                let holderLevel = speech[holder] == nil ? nil : levels[holder]
                if held, holderLevel.map({ levels[challenger]! >= $0 + settings.margin }) ?? true { dominant = challenger }
            } else {
                dominant = challenger
            }
        }
        guard dominant != previous else { return nil }
        floorSince = now
        return .some(dominant)
    }

    /// Those speaking now, loudest first (by smoothed level).
    func speakers(levels: [String: Double]) -> [Speaker] {
        speech.keys.compactMap { name in levels[name].map { Speaker(name: name, level: $0) } }
            .sorted { $0.level != $1.level ? $0.level > $1.level : $0.name < $1.name }
    }

    /// The loudest stream, other than the holder, that has spoken for `hold` or more.
    private func loudestReady(levels: [String: Double]) -> String? {
        var best: (name: String, level: Double)?
        for (name, stretch) in speech where name != dominant && stretch.last &- stretch.since >= settings.holdMicros {
            let level = levels[name] ?? -127
            if let current = best, level < current.level || (level == current.level && name > current.name) { continue }
            best = (name, level)
        }
        return best?.name
    }
}
