import SluiceMedia
import SluiceVocabulary

/// Pre-call tests (docs/protocol.md section 6, "Pre-call test"): a handle with a PeerConnection
/// of its own and no stream, on the least-loaded worker, which ends by itself after its report.
/// Its events go to its session as `precall` events, not `streamEvent`s. Control thread.
final class Precalls {
    private struct Entry {
        var session: SessionID
        var worker: Int
    }

    /// libwebrtc starts its encoder here rather than at 300 kbit/s, so the uplink fills sooner.
    static let startBitrateKbps = 1000

    private var precalls: [StreamHandle: Entry] = [:]
    private let pool: WorkerPool
    private let negotiator: Negotiation
    private let outbox: Outbox
    private let consentTimeoutMicros: UInt64

    init(pool: WorkerPool, negotiator: Negotiation, outbox: Outbox, consentTimeoutMicros: UInt64) {
        self.pool = pool
        self.negotiator = negotiator
        self.outbox = outbox
        self.consentTimeoutMicros = consentTimeoutMicros
    }

    /// A test of `request.session` on `worker`; one at a time per session.
    func start(_ request: PrecallRequest, worker: Int) throws(MediaError) -> MediaAnswer {
        if precalls.values.contains(where: { $0.session == request.session }) {
            throw .limitReached("one precall at a time")
        }
        let handle = RandomToken.handle(prefix: "precall")
        let negotiated = try negotiator.negotiatePrecall(
            offer: request.offer, handle: handle, candidates: pool.candidates(worker: worker),
            startBitrateKbps: Self.startBitrateKbps, consentTimeoutMicros: consentTimeoutMicros)
        precalls[handle] = Entry(session: request.session, worker: worker)
        let settings = PrecallSettings(seconds: request.seconds, maxKbps: request.maxKbps,
                                       probesDownlink: negotiated.probes)
        let parameters = negotiated.parameters
        pool.run(on: worker) { $0.addPrecall(parameters, settings: settings) }
        return MediaAnswer(handle: handle, sdp: negotiated.answer)
    }

    func owns(_ handle: StreamHandle) -> Bool { precalls[handle] != nil }

    /// Ends a pre-call test with no more events (its `stop`, its session's end).
    func end(_ handle: StreamHandle) {
        guard let entry = precalls.removeValue(forKey: handle) else { return }
        pool.run(on: entry.worker) { $0.remove(handle) }
    }

    func endSession(_ session: SessionID) {
        for (handle, entry) in precalls where entry.session == session { end(handle) }
    }

    /// A worker's progress or report of a test; its report ends it.
    func workerEvent(_ event: WorkerEvent) {
        switch event {
        case .precallProgress(let handle, let figures):
            emit(handle, EventWords.precallProgress(figures), ends: false)
        case .precallDone(let handle, let figures):
            emit(handle, EventWords.precallReport(figures), ends: true)
            end(handle)
        default:
            break
        }
    }

    func failed(_ handle: StreamHandle, info: String) {
        emit(handle, EventWords.Words(type: "precallFailed", by: nil, data: ["info": .string(info)]), ends: true)
        end(handle)
    }

    /// The worker of every test: their load.
    var workers: [Int] { precalls.values.map(\.worker) }
    var count: Int { precalls.count }

    private func emit(_ handle: StreamHandle, _ words: EventWords.Words, ends: Bool) {
        guard let entry = precalls[handle] else { return }
        outbox.post(.precall(session: entry.session, handle: handle, type: words.type, data: words.data, ends: ends))
    }
}
