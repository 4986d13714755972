/// One stream on one worker: its publisher's producer (when there is one) and the
/// consumers of its players. A player that waits for a publisher stays attached while the
/// producer comes and goes.
final class Router {
    let stream: String
    private(set) var producer: Producer?
    /// The players, in memory the router owns (freed in deinit) rather than a stored `var`:
    /// the fan-out reads the list for every packet, and a stored array that `append` and
    /// `removeAll` mutate is read under a dynamic exclusivity check each time (docs/design.md,
    /// hot-path rule 8).
    private(set) var consumers: [Consumer] {
        _read { yield consumerList.pointee }
        _modify { yield &consumerList.pointee }
    }
    private let consumerList: UnsafeMutablePointer<[Consumer]>
    /// Stream-wide mute (publisher's or server's), applied by every consumer.
    private(set) var audioMuted = false
    private(set) var videoMuted = false

    init(stream: String) {
        self.stream = stream
        consumerList = .allocate(capacity: 1)
        consumerList.initialize(to: [])
    }

    deinit {
        consumerList.deinitialize(count: 1)
        consumerList.deallocate()
    }

    var isEmpty: Bool { producer == nil && consumers.isEmpty }

    func attach(_ producer: Producer) {
        self.producer = producer
        producer.router = self
        for consumer in consumers { consumer.sourceChanged(producer) }
    }

    func detach(_ producer: Producer) {
        guard self.producer === producer else { return }
        self.producer = nil
        producer.router = nil
        for consumer in consumers { consumer.sourceChanged(nil) }
    }

    func add(_ consumer: Consumer) {
        consumers.append(consumer)
        consumer.sourceChanged(producer)
    }

    func remove(_ consumer: Consumer) {
        consumers.removeAll { $0 === consumer }
    }

    /// The fan-out: one packet from the producer to every consumer. Synchronous, on the
    /// worker thread, in the receive batch (docs/design.md "The packet path").
    @inline(__always)
    func forward(_ packet: borrowing ForwardedPacket) {
        if isMuted(packet.kind) { return }
        for consumer in consumers { consumer.forward(packet) }
    }

    func setMuted(_ kind: MediaKind, _ muted: Bool) {
        if kind == .audio { audioMuted = muted } else { videoMuted = muted }
        for consumer in consumers { consumer.streamMuteChanged(kind) }
        if kind == .video && !muted { requestKeyFrame() }
    }

    @inline(__always)
    func isMuted(_ kind: MediaKind) -> Bool { kind == .audio ? audioMuted : videoMuted }

    func requestKeyFrame() {
        producer?.requestKeyFrame()
    }

    func requestKeyFrame(layer: Int) {
        producer?.requestKeyFrame(layer: layer)
    }

    /// The producer refreshed its layer measurements (about once a second): every consumer
    /// reconsiders its layer, off the packet path.
    func layersMeasured(now: UInt64) {
        for consumer in consumers { consumer.selectLayer(now: now) }
    }
}
