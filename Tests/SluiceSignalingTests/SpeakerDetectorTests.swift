import Testing
@testable import SluiceSignaling

/// The speaker detector on scripted level sequences, one reading per 100 ms window as
/// `AudioLevelMeter` gives them: a steady speaker, a hand-over, a cough, silence, a muted
/// speaker.
struct SpeakerDetectorTests {
    private static let window: UInt64 = 100_000
    private static let silent = -127.0

    /// Runs `script` (one level map per window, from `start`), and returns each change of
    /// the dominant speaker with its time.
    private func run(_ detector: inout SpeakerDetector, _ script: [[String: Double]], muted: [Set<String>] = [],
                     start: UInt64 = 0) -> [(at: UInt64, dominant: String?)] {
        var changes: [(at: UInt64, dominant: String?)] = []
        for (i, levels) in script.enumerated() {
            let now = start + UInt64(i) * Self.window
            if let change = detector.update(levels: levels, muted: i < muted.count ? muted[i] : [], now: now) {
                changes.append((now, change))
            }
        }
        return changes
    }

    /// `count` windows of the same levels.
    private func windows(_ count: Int, _ levels: [String: Double]) -> [[String: Double]] {
        Array(repeating: levels, count: count)
    }

    /// What `AudioLevelMeter` reads after a speaker at `level` stops: 3 dB less each window.
    private func fading(from level: Double, _ count: Int) -> [Double] {
        (1...count).map { max(Self.silent, level - 3 * Double($0)) }
    }

    @Test func aSteadySpeakerTakesTheFloorAfterTheHoldTime() {
        var detector = SpeakerDetector()
        let changes = run(&detector, windows(10, ["a": -30, "b": Self.silent]))
        #expect(changes.map(\.dominant) == ["a"])
        #expect(changes.first?.at == 500_000)
        #expect(detector.speakers(levels: ["a": -30, "b": Self.silent]) == [.init(name: "a", level: -30)])
    }

    /// A stops and B starts in the same window: the floor moves after the hold time (the
    /// hand-over latency), while A's level is still fading.
    @Test func aHandOverTakesTheHoldTime() {
        var detector = SpeakerDetector()
        var script = windows(10, ["a": -30, "b": Self.silent])
        let fade = fading(from: -30, 8)
        script += fade.map { ["a": $0, "b": -32] }
        let changes = run(&detector, script)
        #expect(changes.map(\.dominant) == ["a", "b"])
        #expect(changes.last!.at - 10 * Self.window == 500_000)
    }

    /// A cough (400 ms, loud) while A speaks, and a short "yes" (400 ms) in silence: the floor stays.
    @Test func aCoughOrAShortYesDoesNotTakeTheFloor() {
        var detector = SpeakerDetector()
        var script = windows(10, ["a": -30, "c": Self.silent])
        script += windows(4, ["a": -30, "c": -10])
        script += windows(5, ["a": -30, "c": Self.silent])
        script += windows(10, ["a": Self.silent, "c": Self.silent])
        script += windows(4, ["a": Self.silent, "c": -25])
        script += windows(5, ["a": Self.silent, "c": Self.silent])
        let changes = run(&detector, script)
        #expect(changes.map(\.dominant) == ["a"])
    }

    /// What the meter really gives for a cough in silence: its smoothed level falls 3 dB a
    /// window for a second, but its voice (the window's own mean) stops with it. The voice
    /// decides: the silent holder keeps the floor.
    @Test func aCoughsFallingLevelIsNoSpeech() {
        var detector = SpeakerDetector()
        var changes: [String?] = []
        var now: UInt64 = 0
        func step(_ levels: [String: Double], _ voices: [String: Double]) {
            if let change = detector.update(levels: levels, voices: voices, muted: [], now: now) { changes.append(change) }
            now += Self.window
        }
        for _ in 0..<10 { step(["a": -30, "c": Self.silent], ["a": -30, "c": Self.silent]) }
        for _ in 0..<10 { step(["a": Self.silent, "c": Self.silent], ["a": Self.silent, "c": Self.silent]) }
        for _ in 0..<3 { step(["a": Self.silent, "c": -10], ["a": Self.silent, "c": -10]) }
        for level in fading(from: -10, 14) { step(["a": Self.silent, "c": level], ["a": Self.silent, "c": Self.silent]) }
        #expect(changes == ["a"])
        #expect(detector.speakers(levels: ["c": -40]).isEmpty)
    }

    /// Pauses between words (200 ms) do not break a stretch of speech: the speaker still takes
    /// the floor after the hold.
    @Test func pausesBetweenWordsDoNotBreakSpeech() {
        var detector = SpeakerDetector()
        var script: [[String: Double]] = []
        for _ in 0..<4 { script += windows(2, ["a": -25]) + windows(2, ["a": Self.silent]) }
        let changes = run(&detector, script)
        #expect(changes.map(\.dominant) == ["a"])
    }

    /// Two talking over each other, the newcomer hardly louder: no swap at every word. Much
    /// louder for the hold time: it takes the floor.
    @Test func talkingOverNeedsTheMarginToTakeTheFloor() {
        var detector = SpeakerDetector()
        var script = windows(10, ["a": -30, "b": Self.silent])
        script += windows(10, ["a": -30, "b": -27])
        script += windows(5, ["a": -30, "b": -20])
        let changes = run(&detector, script)
        #expect(changes.map(\.dominant) == ["a", "b"])
    }

    /// In silence the last speaker keeps the floor.
    @Test func silenceKeepsTheLastSpeaker() {
        var detector = SpeakerDetector()
        let script = windows(10, ["a": -30]) + windows(20, ["a": Self.silent])
        #expect(run(&detector, script).map(\.dominant) == ["a"])
        #expect(detector.dominant == "a")
        #expect(detector.speakers(levels: ["a": Self.silent]).isEmpty)
    }

    /// A muted speaker drops out at once: the floor goes to whoever has spoken for the hold
    /// time, or to nobody; a muted stream never takes it, however loud.
    @Test func aMutedSpeakerDropsOut() {
        var detector = SpeakerDetector()
        let script = windows(10, ["a": -30, "b": Self.silent]) + windows(10, ["a": -30, "b": Self.silent])
            + windows(10, ["a": -20, "b": -30])
        let muted = Array(repeating: Set<String>(), count: 10) + Array(repeating: Set(["a"]), count: 20)
        let changes = run(&detector, script, muted: muted)
        #expect(changes.map(\.dominant) == ["a", nil, "b"])
        #expect(changes[1].at == 10 * Self.window)
    }
}
