import Foundation

/// The end-of-run table on stdout: one row per figure, then the problems if any.
public enum SummaryTable {
    public static func render(_ r: LoadTestResult) -> String {
        let rows = self.rows(r)
        let width = rows.map { $0.0.count }.max() ?? 0
        var text = rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }
            .joined(separator: "\n") + "\n"
        if !r.problems.isEmpty {
            text += r.problems.prefix(20).map { "  - \($0)" }.joined(separator: "\n") + "\n"
            if r.problems.count > 20 { text += "  ... and \(r.problems.count - 20) more (result.json)\n" }
        }
        return text
    }

    /// (label, value) pairs; a label indented by two spaces qualifies the row above.
    public static func rows(_ r: LoadTestResult) -> [(String, String)] {
        var rows: [(String, String)] = []
        let o = r.options
        rows.append(("target", "\(r.target.rawValue) at \(r.url)"
                     + (r.urls.count > 1 ? " (publishers; players over \(r.urls.count) URLs)" : "")))
        rows.append(("scenario", "\(o.publishers) publisher(s) x \(o.players) player(s), video \(o.video ? "\(o.videoWidth)x\(o.videoHeight) \(o.videoBitrateKbps) kbps \(o.fps) fps" : "off")"
                     + (o.simulcast ? " simulcast 3 layers" : "") + ", audio \(o.audio ? "on" : "off")"
                     + (o.quality.map { ", quality \($0.rawValue)" } ?? "")))
        rows.append(("measured", String(format: "%.1f s", r.measuredSeconds)))
        rows.append(("players joined", "\(r.totals.joinedPlayers)/\(r.totals.expectedPlayers)"
                     + (r.totals.failedPlayers > 0 ? " (\(r.totals.failedPlayers) failed)" : "")))
        if r.urls.count > 1 {
            for u in r.totals.perURL {
                rows.append(("  at \(u.url)", "\(u.joined)/\(u.players)" + (u.failed > 0 ? " (\(u.failed) failed)" : "")
                             + ", \(u.packets) packets"))
            }
        }
        if o.playerReceive == .headers {
            rows.append(("player receive", "headers: RTP headers read before SRTP, never unprotected (no key frames seen)"))
        }
        if let p50 = r.totals.joinMillisP50, let p99 = r.totals.joinMillisP99 {
            rows.append(("join time p50 / p99", String(format: "%.0f ms / %.0f ms", p50, p99)))
        }
        let c = r.totals.continuity
        rows.append(("packets received", "\(c.packets) (" + String(format: "%.0f", r.totals.packetsPerSecond) + " pkt/s)"))
        rows.append(("lost", "\(c.lost) (\(Format.percent(c.lossFraction)))"))
        rows.append(("duplicates / gaps / reordered", "\(c.duplicates) / \(c.gaps) / \(c.reordered)"))
        rows.append(("key frames received", o.playerReceive == .headers ? "not seen (--player-receive headers)" : "\(r.totals.keyFrames)"))
        rows.append(("layer switches", "\(r.totals.layerSwitches)"))
        let d = r.delay
        if r.delaySource == .serverAbsSendTime {
            rows.append(("delay from", "the server's abs-send-time stamp (its receive), not the publisher's send"))
        }
        if d.count > 0 {
            rows.append(("delay p50 / p99 / p99.9 / max", delayText(d)))
            if let steady = r.steadyDelay, steady.count > 0, let seconds = r.steadySeconds {
                rows.append(("  after all joined", delayText(steady) + String(format: " over %.1f s", seconds)))
            }
        } else {
            rows.append(("delay", "no samples"))
        }
        if let s = r.server {
            rows.append(("server pid", "\(s.pid)" + (s.spawned ? " (spawned)" : "")))
            rows.append(("server CPU", String(format: "%.2f s (%.0f%% of a core)", s.cpuSeconds, s.meanCPUPercent)))
            rows.append(("server CPU per packet", s.cpuMicrosPerPacket.map { String(format: "%.2f µs", $0) } ?? "-"))
            if let steady = s.steadyCPUMicrosPerPacket, let seconds = s.steadySeconds {
                rows.append(("  after all joined", String(format: "%.2f µs over %.1f s", steady, seconds)))
            }
            rows.append(("server max RSS", Format.bytes(s.maxRSSBytes)))
        } else {
            rows.append(("server CPU", "not sampled (give --server-pid or --spawn)"))
        }
        if let client = r.clientCPUSeconds {
            rows.append(("load tester media CPU", String(format: "%.2f s", client)
                         + (r.tester?.mediaCPUMicrosPerPacket.map { String(format: " (%.2f µs per received packet)", $0) } ?? "")))
        }
        if let t = r.tester {
            rows.append(("load tester process CPU", String(format: "%.2f s (%.0f%% of a core)", t.cpuSeconds, t.cpuPercent)
                         + (t.cpuMicrosPerPacket.map { String(format: ", %.2f µs per received packet", $0) } ?? "")))
        }
        rows.append(("verdict", r.problems.isEmpty ? "no loss, no duplicates, no discontinuity, all joined"
                                                   : "\(r.problems.count) problem(s)"))
        return rows
    }

    static func delayText(_ d: LoadTestResult.DelayFigures) -> String {
        [d.p50Micros, d.p99Micros, d.p999Micros, d.maxMicros].map { $0.map(Format.millis) ?? "-" }.joined(separator: " / ")
    }
}
