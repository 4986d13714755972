import SluiceTransport

/// The ICE-TCP families of `/metrics`, per media worker: its TCP media connections and what a
/// slow reader cost (packets dropped from its connection's full send queue).
struct AdminTCPMetrics {
    struct Worker {
        var index: Int
        var open: Int
        var accepted: UInt64
        var refused: UInt64
        var closedForBadInput: UInt64
        var framesReceived: UInt64
        var framesSent: UInt64
        var sendDropped: UInt64
    }

    static func read(_ workers: [MediaWorker]) -> [Worker] {
        workers.map {
            Worker(index: $0.index, open: $0.tcpConnectionsOpen, accepted: $0.tcpConnectionsAccepted,
                   refused: $0.tcpConnectionsRefused, closedForBadInput: $0.tcpConnectionsClosedForBadInput,
                   framesReceived: $0.tcpFramesReceived, framesSent: $0.tcpFramesSent,
                   sendDropped: $0.tcpSendDroppedPackets)
        }
    }

    static func families(_ workers: [Worker]) -> [PrometheusMetricFamily] {
        var open = PrometheusMetricFamily(name: "sluice_worker_tcp_connections",
                                          help: "ICE-TCP media connections a worker has open.", kind: .gauge)
        var accepted = PrometheusMetricFamily(name: "sluice_worker_tcp_connections_accepted_total",
                                              help: "ICE-TCP connections a worker accepted.", kind: .counter)
        var refused = PrometheusMetricFamily(
            name: "sluice_worker_tcp_connections_refused_total",
            help: "ICE-TCP connections closed at once: over the worker's limit, or no free file descriptor.", kind: .counter)
        var bad = PrometheusMetricFamily(
            name: "sluice_worker_tcp_connections_closed_bad_input_total",
            help: "ICE-TCP connections closed for bad input: an oversize frame, data before ICE, or no ICE check in time.",
            kind: .counter)
        var received = PrometheusMetricFamily(name: "sluice_worker_tcp_frames_received_total",
                                              help: "RFC 4571 frames a worker read from its TCP connections.", kind: .counter)
        var sent = PrometheusMetricFamily(name: "sluice_worker_tcp_frames_sent_total",
                                          help: "RFC 4571 frames a worker queued on its TCP connections.", kind: .counter)
        var dropped = PrometheusMetricFamily(
            name: "sluice_worker_tcp_send_dropped_packets_total",
            help: "Packets a worker dropped because a TCP reader was too slow (its connection's send queue was full).",
            kind: .counter)
        for worker in workers {
            let labels = [(name: "worker", value: String(worker.index))]
            open.add(worker.open, labels: labels)
            accepted.add(worker.accepted, labels: labels)
            refused.add(worker.refused, labels: labels)
            bad.add(worker.closedForBadInput, labels: labels)
            received.add(worker.framesReceived, labels: labels)
            sent.add(worker.framesSent, labels: labels)
            dropped.add(worker.sendDropped, labels: labels)
        }
        return [open, accepted, refused, bad, received, sent, dropped]
    }
}
