import SluiceMedia
import SluiceVocabulary

/// Pre-call tests (docs/protocol.md section 6, "Pre-call test"): a handle with a PeerConnection
/// of its own and no stream, on the least-loaded worker, which ends by itself after its report.
extension MediaEngine {
    struct PrecallEntry {
        var session: SessionID
        var worker: Int
    }

    /// libwebrtc starts its encoder here rather than at 300 kbit/s, so the uplink fills sooner.
    static let precallStartBitrateKbps = 1000

    public func precall(_ request: PrecallRequest) throws(MediaError) -> MediaAnswer {
        if precalls.values.contains(where: { $0.session == request.session }) {
            throw .limitReached("one precall at a time")
        }
        let worker = leastLoadedWorker()
        let handle = Self.makeHandle(prefix: "precall")
        let negotiated = try negotiator.negotiatePrecall(
            offer: request.offer, handle: handle, candidates: candidates(worker: worker),
            startBitrateKbps: Self.precallStartBitrateKbps,
            consentTimeoutMicros: UInt64(config.iceConsentTimeoutSeconds) * 1_000_000)
        precalls[handle] = PrecallEntry(session: request.session, worker: worker)
        let settings = PrecallSettings(seconds: request.seconds, maxKbps: request.maxKbps,
                                       probesDownlink: negotiated.probes)
        let parameters = negotiated.parameters
        let media = workerStreams[worker]
        workers[worker].execute { media.addPrecall(parameters, settings: settings) }
        return MediaAnswer(handle: handle, sdp: negotiated.answer)
    }

    /// Ends a pre-call test with no more events (its `stop`, its session's end).
    func endPrecall(_ handle: StreamHandle) {
        guard let entry = precalls.removeValue(forKey: handle) else { return }
        let media = workerStreams[entry.worker]
        workers[entry.worker].execute { media.remove(handle) }
    }

    func precallEvent(_ event: WorkerEvent) {
        switch event {
        case .precallProgress(let handle, let figures):
            emitPrecall(handle, EventWords.precallProgress(figures), ends: false)
        case .precallDone(let handle, let figures):
            emitPrecall(handle, EventWords.precallReport(figures), ends: true)
            endPrecall(handle)
        default:
            break
        }
    }

    func precallFailed(_ handle: StreamHandle, info: String) {
        emitPrecall(handle, EventWords.Words(type: "precallFailed", by: nil, data: ["info": .string(info)]), ends: true)
        endPrecall(handle)
    }

    private func emitPrecall(_ handle: StreamHandle, _ words: EventWords.Words, ends: Bool) {
        guard let entry = precalls[handle] else { return }
        pending.append(.precall(session: entry.session, handle: handle, type: words.type, data: words.data, ends: ends))
        wakeup()
    }
}
