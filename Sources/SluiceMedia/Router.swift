/// One stream on one worker: its publisher's producer (when there is one) and the
/// consumers of its players. A player that waits for a publisher stays attached while the
/// producer comes and goes.
final class Router {
    let stream: String
    private(set) var producer: Producer?
    private(set) var consumers: [Consumer] = []

    init(stream: String) {
        self.stream = stream
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
    /// worker thread, in the receive batch (DESIGN.md "The packet path").
    @inline(__always)
    func forward(_ packet: borrowing ForwardedPacket) {
        for consumer in consumers { consumer.forward(packet) }
    }

    func requestKeyFrame() {
        producer?.requestKeyFrame()
    }
}
