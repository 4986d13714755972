import SluiceControl

/// The cross-worker fan-out's family of `/metrics`, per media worker: packets it handed to
/// other workers (once per packet and relaying worker, whatever their players), packets it
/// could not hand (the receiving worker's queue was full, or no buffer was free), and packets
/// it was handed and delivered to its own players' routers.
enum AdminRelayMetrics {
    static func families(_ workers: [MediaEngine.RelayCounters]) -> [PrometheusMetricFamily] {
        var packets = PrometheusMetricFamily(
            name: "sluice_worker_relay_packets_total",
            help: "Packets a media worker handed to other workers (event handed), could not hand (dropped), or was handed (delivered).",
            kind: .counter)
        for worker in workers {
            let index = String(worker.worker)
            packets.add(worker.handed, labels: [("worker", index), ("event", "handed")])
            packets.add(worker.dropped, labels: [("worker", index), ("event", "dropped")])
            packets.add(worker.delivered, labels: [("worker", index), ("event", "delivered")])
        }
        return [packets]
    }
}
