import Dispatch
import SluiceDataChannel
import Synchronization

/// The size of every table the media side keeps per session, handle, stream, recording,
/// pre-call test and link, for `GET /api/v1/tables` and the leak tests: with nothing connected
/// each is back to its idle size, whatever came and went (issue 33).
extension MediaEngine {
    /// Control thread. Each worker's tables are read on its own thread: this waits up to
    /// `timeout` seconds for each (a worker that does not answer is reported as
    /// `workers.unanswered`), so it is for tests and the admin API, never a hot path.
    public func tableSizes(timeout: Double = 2) -> [String: Int] {
        var sizes: [String: Int] = [
            "engine.streams": streams.count, "engine.handles": handles.count, "engine.events": pending.count,
            "engine.originLinks": originLinks.count, "engine.edgeLinks": edgeLinkState.count,
            "engine.linkHandles": linkHandles.count, "engine.linkResults": linkResults.withLock { $0.count },
            "engine.recordings": recordings.count, "engine.precalls": precalls.count,
            "engine.statsBoard": statsBoard.count,
            "engine.dataChannelEvents": dataChannelEvents.withLock { $0.count },
            "engine.workerEvents": workerEvents.withLock { $0.count },
            "engine.recorderEvents": recorderEvents.withLock { $0.count },
            "recorder.open": recorder?.openRecordings ?? 0,
        ]
        for (name, size) in SCTPStack.shared.tableSizes(scope: dataChannelScope, timeout: timeout) {
            sizes[name] = size
        }
        for (index, media) in workerStreams.enumerated() {
            let answer = Mutex<[String: Int]?>(nil)
            let done = DispatchSemaphore(value: 0)
            workers[index].execute {
                let counted = media.tableSizes
                answer.withLock { $0 = counted }
                done.signal()
            }
            _ = done.wait(timeout: .now() + timeout)
            guard let counted = answer.withLock({ $0 }) else {
                sizes["workers.unanswered", default: 0] += 1
                continue
            }
            // Summed over the workers: a table is idle when every worker's is.
            for (name, size) in counted { sizes[name, default: 0] += size }
        }
        return sizes
    }
}
