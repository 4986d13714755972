/// The families an operator's alerts and dashboard need beyond the media's
/// (deploy/prometheus/sluice-rules.yml): the drain, calls, layer switches, hook outcomes and
/// recordings.
struct AdminServiceMetrics {
    var draining = false
    var calls = 0
    var layerSwitches: UInt64 = 0
    /// (class, count): 2xx, 3xx, 4xx, 5xx, timeout, error.
    var hookOutcomes: [(outcome: String, count: UInt64)] = []
    var recordings = 0
    var recordingFailures: UInt64 = 0

    var families: [PrometheusMetricFamily] {
        var drain = PrometheusMetricFamily(name: "sluice_draining",
                                           help: "1 while the server drains for a restart (SIGTERM or POST /api/v1/drain).",
                                           kind: .gauge)
        drain.add(draining ? 1 : 0)
        var callFamily = PrometheusMetricFamily(name: "sluice_calls", help: "Calls ringing or running.", kind: .gauge)
        callFamily.add(calls)
        var switches = PrometheusMetricFamily(name: "sluice_layer_switches_total",
                                              help: "Simulcast layer switches of every player (layerChanged events).",
                                              kind: .counter)
        switches.add(layerSwitches)
        var hooks = PrometheusMetricFamily(
            name: "sluice_hook_requests_total",
            help: "Hook POSTs by outcome: the backend's status class, timeout (no answer in time) or error (no connection).",
            kind: .counter)
        for (outcome, count) in hookOutcomes { hooks.add(count, labels: [("outcome", outcome)]) }
        var running = PrometheusMetricFamily(name: "sluice_recordings", help: "Recordings running or finishing their file.",
                                             kind: .gauge)
        running.add(recordings)
        var failed = PrometheusMetricFamily(name: "sluice_recording_failures_total",
                                            help: "Recordings that failed (the disk or the muxer refused); each also has a recordingFailed event.",
                                            kind: .counter)
        failed.add(recordingFailures)
        return [drain, callFamily, switches, hooks, running, failed]
    }
}
