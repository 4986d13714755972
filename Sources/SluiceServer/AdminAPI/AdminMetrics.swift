import SluiceControl
import SluiceMedia
import SluiceSignaling
import SluiceTransport
import SluiceVocabulary
import Synchronization

/// What `GET /metrics` shows: server totals, per-stream figures labelled by app and stream
/// (the publisher's own, and the sum over its players), and each media worker's datagram
/// counters. Built on the service thread from the engine's stream views.
struct AdminMetrics {
    struct Input {
        var version: String
        var uptimeSeconds: Int
        var sessions: Int
        var streams: [StreamView]
        /// The app key of a publisher's session.
        var appOf: (SessionID) -> String?
        /// (worker index, datagrams in, out, dropped, and the send messages that carried the
        /// datagrams out: fewer than those when UDP GSO joins them).
        var workers: [(index: Int, received: UInt64, sent: UInt64, dropped: UInt64, messages: UInt64)]
        /// Per worker: datagrams per forward-delay bucket (ForwardDelayHistogram).
        var forwardDelays: [(index: Int, buckets: [UInt64])] = []
        /// Per worker: its ICE-TCP connections.
        var tcp: [AdminTCPMetrics.Worker] = []
        /// Per worker: the cross-worker fan-out's counters.
        var relay: [MediaEngine.RelayCounters] = []
        /// The relay links between nodes.
        var links = AdminLinkMetrics.Input()
        /// Every handle's data channels.
        var dataChannels: [AdminDataChannelMetrics.Handle] = []
        /// The call log's records never stored (`CallLogStore.droppedWrites`); nil when it is off.
        var callLogDropped: UInt64?
        /// The drain, calls, layer switches, hooks and recordings.
        var service = AdminServiceMetrics()
    }

    static func families(_ input: Input) -> [PrometheusMetricFamily] {
        var up = PrometheusMetricFamily(name: "sluice_up", help: "1 while the server answers.", kind: .gauge)
        up.add(1)
        var info = PrometheusMetricFamily(name: "sluice_build_info", help: "The server version, as a label.", kind: .gauge)
        info.add(1, labels: [("version", input.version)])
        var uptime = PrometheusMetricFamily(name: "sluice_uptime_seconds", help: "Seconds since the server started.",
                                            kind: .gauge)
        uptime.add(input.uptimeSeconds)
        var sessions = PrometheusMetricFamily(name: "sluice_sessions", help: "Signaling sessions that completed connect.",
                                              kind: .gauge)
        sessions.add(input.sessions)
        let live = input.streams.filter { $0.publisher != nil }
        var streams = PrometheusMetricFamily(name: "sluice_streams", help: "Streams with a publisher.", kind: .gauge)
        streams.add(live.count)
        var players = PrometheusMetricFamily(name: "sluice_players",
                                             help: "Play handles, including those waiting for a publisher.", kind: .gauge)
        players.add(input.streams.reduce(0) { $0 + $1.players.count })

        var perStream = StreamFamilies()
        for view in live {
            let app = view.publisherSession.flatMap(input.appOf) ?? ""
            perStream.add(view, app: app)
        }

        var received = PrometheusMetricFamily(name: "sluice_worker_datagrams_received_total",
                                              help: "UDP datagrams a media worker received.", kind: .counter)
        var sent = PrometheusMetricFamily(name: "sluice_worker_datagrams_sent_total",
                                          help: "UDP datagrams a media worker sent.", kind: .counter)
        var dropped = PrometheusMetricFamily(name: "sluice_worker_datagrams_dropped_total",
                                             help: "Outgoing datagrams a media worker dropped (queue full or send error).",
                                             kind: .counter)
        var messages = PrometheusMetricFamily(name: "sluice_worker_send_messages_total",
                                              help: "UDP send messages a media worker sent; one UDP GSO message carries several datagrams.",
                                              kind: .counter)
        for worker in input.workers {
            let labels = [(name: "worker", value: String(worker.index))]
            received.add(worker.received, labels: labels)
            sent.add(worker.sent, labels: labels)
            dropped.add(worker.dropped, labels: labels)
            messages.add(worker.messages, labels: labels)
        }
        var delay = PrometheusMetricFamily(
            name: "sluice_worker_forward_delay_datagrams_total",
            help: "Datagrams a media worker handled within le_us microseconds from receive to the last send they caused (cumulative).",
            kind: .counter)
        for worker in input.forwardDelays {
            var cumulative: UInt64 = 0
            for (i, count) in worker.buckets.enumerated() {
                cumulative += count
                let bound = i < ForwardDelayHistogram.boundsMicros.count ? String(ForwardDelayHistogram.boundsMicros[i]) : "+Inf"
                delay.add(cumulative, labels: [("worker", String(worker.index)), ("le_us", bound)])
            }
        }
        return [up, info, uptime, sessions, streams, players] + perStream.all + [received, sent, dropped, messages, delay]
            + AdminTCPMetrics.families(input.tcp) + AdminRelayMetrics.families(input.relay)
            + AdminLinkMetrics.families(input.links) + AdminDataChannelMetrics.families(input.dataChannels)
            + callLogFamilies(input.callLogDropped) + input.service.families
    }

    /// `sluice_call_log_dropped_total` while the call log is on: what a database that was
    /// away (or a disk that refused) cost, which the log line says only once.
    static func callLogFamilies(_ dropped: UInt64?) -> [PrometheusMetricFamily] {
        guard let dropped else { return [] }
        var family = PrometheusMetricFamily(
            name: "sluice_call_log_dropped_total",
            help: "Call log records never stored: over the in-memory bound while the database was away, refused, or left at shutdown.",
            kind: .counter)
        family.add(dropped)
        return [family]
    }

    static func forwardDelays(_ workers: [MediaWorker]) -> [(index: Int, buckets: [UInt64])] {
        workers.map { ($0.index, $0.forwardDelay.read()) }
    }

    static func workerCounters(_ workers: [MediaWorker])
        -> [(index: Int, received: UInt64, sent: UInt64, dropped: UInt64, messages: UInt64)] {
        workers.map { worker in
            (worker.index, worker.datagramsIn.load(ordering: .relaxed), worker.datagramsOut.load(ordering: .relaxed),
             worker.datagramsDropped.load(ordering: .relaxed), worker.sendMessages.load(ordering: .relaxed))
        }
    }
}

/// The per-stream families, labelled `app`, `stream`, `role` (publish: what the server
/// receives; play: summed over the stream's players) and `kind`.
private struct StreamFamilies {
    var packets = PrometheusMetricFamily(name: "sluice_stream_packets_total",
                                         help: "RTP packets received from the publisher (role publish) or sent to the players (role play).",
                                         kind: .counter)
    var bytes = PrometheusMetricFamily(name: "sluice_stream_bytes_total", help: "RTP bytes, as for packets.", kind: .counter)
    var bitrate = PrometheusMetricFamily(name: "sluice_stream_bitrate_kbps", help: "Bitrate over the last second in kbit/s.",
                                         kind: .gauge)
    var lost = PrometheusMetricFamily(name: "sluice_stream_packets_lost_total",
                                      help: "Packets lost toward the server (publish) or reported lost by the players (play).",
                                      kind: .counter)
    var nacks = PrometheusMetricFamily(name: "sluice_stream_nacks_total", help: "NACKs sent (publish) or received (play).",
                                       kind: .counter)
    var plis = PrometheusMetricFamily(name: "sluice_stream_plis_total", help: "PLIs sent (publish) or received (play).",
                                      kind: .counter)
    var firs = PrometheusMetricFamily(name: "sluice_stream_firs_total", help: "FIRs sent (publish) or received (play).",
                                      kind: .counter)
    var keyFrames = PrometheusMetricFamily(name: "sluice_stream_key_frames_total",
                                           help: "Video key frames received (publish) or forwarded (play).", kind: .counter)
    var playerCount = PrometheusMetricFamily(name: "sluice_stream_players", help: "Play handles of the stream.", kind: .gauge)
    var muted = PrometheusMetricFamily(name: "sluice_stream_muted",
                                       help: "1 while the kind is muted, by the publisher or the server.", kind: .gauge)

    var all: [PrometheusMetricFamily] { [packets, bytes, bitrate, lost, nacks, plis, firs, keyFrames, playerCount, muted] }

    mutating func add(_ view: StreamView, app: String) {
        let base: [(name: String, value: String)] = [("app", app), ("stream", view.name)]
        playerCount.add(view.players.count, labels: base)
        muted.add(view.audioMuted.muted ? 1 : 0, labels: base + [("kind", "audio")])
        muted.add(view.videoMuted.muted ? 1 : 0, labels: base + [("kind", "video")])
        if let publisher = view.publisher {
            add(publisher.audio, labels: base + [("role", "publish"), ("kind", "audio")], video: false)
            add(publisher.video, labels: base + [("role", "publish"), ("kind", "video")], video: true)
        }
        if !view.players.isEmpty {
            add(Self.sum(view.players.map(\.audio)), labels: base + [("role", "play"), ("kind", "audio")], video: false)
            add(Self.sum(view.players.map(\.video)), labels: base + [("role", "play"), ("kind", "video")], video: true)
        }
    }

    private mutating func add(_ stats: KindStats?, labels: [(name: String, value: String)], video: Bool) {
        guard let stats else { return }
        packets.add(stats.packets, labels: labels)
        bytes.add(stats.bytes, labels: labels)
        bitrate.add(stats.bitrateKbps, labels: labels)
        // A receiver report's cumulative loss can go negative (duplicates); a counter cannot.
        lost.add(UInt64(max(0, stats.packetsLost)), labels: labels)
        nacks.add(stats.nacks, labels: labels)
        plis.add(stats.plis, labels: labels)
        firs.add(stats.firs, labels: labels)
        if video { keyFrames.add(stats.keyFrames, labels: labels) }
    }

    /// nil when no player has this kind.
    private static func sum(_ all: [KindStats?]) -> KindStats? {
        let present = all.compactMap { $0 }
        guard !present.isEmpty else { return nil }
        var total = KindStats()
        for stats in present {
            total.packets &+= stats.packets
            total.bytes &+= stats.bytes
            total.bitrateKbps += stats.bitrateKbps
            total.packetsLost &+= max(0, stats.packetsLost)
            total.nacks &+= stats.nacks
            total.plis &+= stats.plis
            total.firs &+= stats.firs
            total.keyFrames &+= stats.keyFrames
        }
        return total
    }
}
