import SluiceTransport
import SluiceVocabulary

/// The streams of one worker: its routers, producers and consumers (`MediaWorker`, in
/// SluiceTransport, is the loop and sockets they run on). Every method runs on the
/// worker's thread (reached through `MediaWorker.execute`), so none of it is locked.
package final class WorkerStreams {
    package let worker: MediaWorker
    package let security: DTLSSecurity
    package var report: (WorkerEvent) -> Void = { _ in }
    package var statsBoard: StatsBoard?
    /// `rtc.rtpTimeoutSeconds` in microseconds, for every publisher of this worker (0: off).
    package var rtpTimeoutMicros: UInt64 = 0

    private var routers: [String: Router] = [:]
    private var producers: [StreamHandle: Producer] = [:]
    private var consumers: [StreamHandle: Consumer] = [:]

    package init(worker: MediaWorker, security: DTLSSecurity) {
        self.worker = worker
        self.security = security
    }

    package func addPublisher(_ parameters: EndpointParameters, constraints: StreamConstraints, caps: PublishCaps = PublishCaps()) {
        guard let transport = makeTransport(parameters) else { return }
        let producer = Producer(parameters: parameters, transport: transport, statsBoard: statsBoard)
        producer.capWatch = PublishCapWatch(caps: caps)
        producer.rtpActivity = RTPActivityWatch(timeoutMicros: rtpTimeoutMicros)
        producer.report = report
        producer.setBitrateCap(constraints.video?.bitrateKbps ?? constraints.video?.maxBitrateKbps)
        transport.delegate = producer
        worker.addTickable(producer)
        producers[parameters.handle] = producer
        router(parameters.stream).attach(producer)
    }

    package func addPlayer(_ parameters: EndpointParameters, constraints: StreamConstraints) {
        guard let transport = makeTransport(parameters) else { return }
        let consumer = Consumer(parameters: parameters, constraints: constraints, transport: transport,
                                statsBoard: statsBoard)
        consumer.report = report
        transport.delegate = consumer
        worker.addTickable(consumer)
        consumers[parameters.handle] = consumer
        router(parameters.stream).add(consumer)
    }

    package func remove(_ handle: StreamHandle) {
        if let producer = producers.removeValue(forKey: handle) {
            worker.removeTickable(producer)
            producer.transport.close()
            producer.releaseBuffers()
            if let router = producer.router {
                router.detach(producer)
                dropIfEmpty(router)
            }
        } else if let consumer = consumers.removeValue(forKey: handle) {
            worker.removeTickable(consumer)
            consumer.transport.close()
            if let router = routers[consumer.parameters.stream] {
                router.remove(consumer)
                dropIfEmpty(router)
            }
        }
    }

    package func update(_ handle: StreamHandle, constraints: StreamConstraints) {
        consumers[handle]?.update(constraints)
        producers[handle]?.setBitrateCap(constraints.video?.bitrateKbps ?? constraints.video?.maxBitrateKbps)
    }

    package func setPlayerMuted(_ handle: StreamHandle, kind: MediaKind, muted: Bool) {
        consumers[handle]?.setMuted(kind, muted)
    }

    package func setStreamMuted(_ stream: String, kind: MediaKind, muted: Bool) {
        router(stream).setMuted(kind, muted)
    }

    package func requestKeyFrame(for handle: StreamHandle) {
        guard let stream = consumers[handle]?.parameters.stream else { return }
        routers[stream]?.requestKeyFrame(layer: nil)
    }

    /// nil (and the handle fails) when OpenSSL cannot make a session.
    private func makeTransport(_ parameters: EndpointParameters) -> WebRTCTransport? {
        let transport = try? WebRTCTransport(worker: worker, security: security, parameters: parameters.transport)
        if transport == nil { report(.failed(parameters.handle, .dtlsError)) }
        return transport
    }

    private func router(_ stream: String) -> Router {
        if let existing = routers[stream] { return existing }
        let created = Router(stream: stream)
        routers[stream] = created
        return created
    }

    private func dropIfEmpty(_ router: Router) {
        if router.isEmpty { routers[router.stream] = nil }
    }
}
