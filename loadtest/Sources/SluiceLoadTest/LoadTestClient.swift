import SluiceClient

/// A publisher or player of any target: joins, then runs until stopped.
protocol LoadTestClient: AnyObject, Sendable {
    /// Signaling and media setup; throws when it fails or `deadline` (monotonic µs) passes.
    func join(workers: MediaWorkerPool, deadline: UInt64) async throws
    /// Closes media and signaling; never throws.
    func stop() async
}
