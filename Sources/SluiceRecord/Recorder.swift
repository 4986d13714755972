import Foundation
import SluiceMedia
import SluiceWire
import Synchronization

/// The recorder thread: every recording's frames are reassembled and written here, never on
/// a media worker (docs/design.md, "Recording"). It wakes every 10 ms, drains each
/// recording's `RecordingRing` and writes what is complete; a recording whose ring the
/// worker closed (the publisher left) is drained, closed and renamed.
///
/// `start` and `shutdown` may be called from any thread; `events` is called on the recorder
/// thread.
// @unchecked: the sessions are the recorder thread's; `start` and `shutdown` hand over through the locked start list; `events` and `log` are set before start.
public final class Recorder: @unchecked Sendable {
    public let settings: RecordingSettings
    public var events: @Sendable (RecordingEvent) -> Void = { _ in }
    public var log: @Sendable (String) -> Void = { _ in }

    private struct Start {
        var id: String
        var ring: RecordingRing
        var tracks: RecordingTracks
        var path: String
    }
    private let inbox = Mutex<[Start]>([])
    private let stopping = Atomic<Bool>(false)
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    /// Recorder-thread state.
    private var sessions: [RecordingSession] = []
    /// Files open, as of the thread's last pass, plus starts not yet taken (a leak test's count).
    private let openCount = Atomic<Int>(0)
    public var openRecordings: Int { openCount.load(ordering: .relaxed) + inbox.withLock { $0.count } }

    static let pollMicros: UInt32 = 10_000

    /// Makes the folder if it is missing; throws when it cannot be made or written.
    public init(settings: RecordingSettings) throws {
        self.settings = settings
        try RecordingPaths.prepare(folder: settings.folder)
    }

    public func run() {
        let thread = Thread { [self] in loop() }
        thread.name = "sluice-recorder"
        self.thread = thread
        thread.start()
    }

    /// Records `ring` to `path` (with no extension: the tracks choose it).
    public func start(id: String, ring: RecordingRing, tracks: RecordingTracks, path: String) {
        inbox.withLock { $0.append(Start(id: id, ring: ring, tracks: tracks, path: path)) }
    }

    /// Closes every file (each as if its publisher had left) and ends the thread.
    public func shutdown() {
        guard thread != nil, !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }

    private func loop() {
        while true {
            let stop = stopping.load(ordering: .acquiring)
            for start in inbox.withLock({ queue -> [Start] in
                let taken = queue
                queue.removeAll()
                return taken
            }) {
                sessions.append(RecordingSession(id: start.id, ring: start.ring, tracks: start.tracks, path: start.path,
                                                 settings: settings, events: events, log: log))
            }
            let now = MonotonicClock.nowMicros()
            sessions.removeAll { session in
                let open = session.pump(now: now)
                guard !open || stop else { return false }
                session.finish()
                events(.ended(id: session.id))
                return true
            }
            openCount.store(sessions.count, ordering: .relaxed)
            if stop { break }
            usleep(Self.pollMicros)
        }
        finished.signal()
    }
}
