import Foundation

/// report.html: the scenario, the figures and four charts (server CPU and joined players over
/// time, the delay distribution, loss per player), self-contained: inline CSS and SVG, no
/// script, no external resource. Written as well-formed XHTML so that any XML parser reads it.
public enum HTMLReport {
    public static func render(_ r: LoadTestResult) -> String {
        let e = SVGChart.escape
        var html = """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <title>sluice-loadtest: \(e(r.target.rawValue)) \(e(r.startedAt))</title>
            <style>
            body { font-family: sans-serif; margin: 24px; color: #222; max-width: 780px; }
            table { border-collapse: collapse; margin: 8px 0 20px 0; }
            td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; font-size: 13px; }
            th { background: #f2f2f2; }
            th.sub { font-weight: normal; padding-left: 24px; }
            .bad { color: #b00020; }
            .good { color: #1b5e20; }
            svg { display: block; margin: 12px 0; }
            </style>
            </head>
            <body>
            <h1>sluice-loadtest</h1>

            """
        html += "<p>\(e(r.target.rawValue)) at <code>\(e(r.url))</code>, started \(e(r.startedAt)), measured "
            + String(format: "%.1f", r.measuredSeconds) + " s.</p>\n"
        if r.problems.isEmpty {
            html += "<p class=\"good\">Every player joined; no loss, duplicate or sequence discontinuity.</p>\n"
        } else {
            html += "<p class=\"bad\">\(r.problems.count) problem(s):</p>\n<ul>\n"
            for p in r.problems.prefix(50) { html += "<li class=\"bad\">\(e(p))</li>\n" }
            if r.problems.count > 50 { html += "<li>... \(r.problems.count - 50) more in result.json</li>\n" }
            html += "</ul>\n"
        }

        html += "<h2>Figures</h2>\n<table>\n"
        for (label, value) in SummaryTable.rows(r) {
            let sub = label.hasPrefix("  ")
            html += "<tr><th\(sub ? " class=\"sub\"" : "")>\(e(label.trimmingCharacters(in: .whitespaces)))</th>"
                + "<td>\(e(value))</td></tr>\n"
        }
        html += "</table>\n"

        html += "<h2>Over time</h2>\n"
        let cpu = r.samples.compactMap { s in s.serverCPUPercent.map { (x: s.elapsedSeconds, y: $0) } }
        if cpu.isEmpty {
            html += "<p>Server CPU was not sampled (run with --server-pid or --spawn).</p>\n"
        } else {
            html += SVGChart.lines(title: "Server CPU", xLabel: "seconds since the first join", yLabel: "% of one core",
                                   series: [.init(name: "server CPU", color: "#1565c0", points: cpu)])
        }
        html += SVGChart.lines(title: "Joined players", xLabel: "seconds since the first join", yLabel: "players",
                               series: [.init(name: "joined", color: "#2e7d32",
                                              points: r.samples.map { (x: $0.elapsedSeconds, y: Double($0.joinedPlayers)) })],
                               yMax: Double(max(1, r.totals.expectedPlayers)))
        html += SVGChart.lines(title: "Packets received per second (all players)", xLabel: "seconds since the first join",
                               yLabel: "packets/s",
                               series: [.init(name: "received", color: "#6a1b9a",
                                              points: r.samples.map { (x: $0.elapsedSeconds, y: $0.packetsPerSecond) })])

        html += "<h2>One-way delay</h2>\n"
        html += "<p>Send time carried in each packet to arrival at the player, on one monotonic clock; "
            + "all players and both kinds.</p>\n"
        var labels: [Int: String] = [:]
        let bins = r.delayHistogram
        for i in stride(from: 0, to: bins.count, by: max(1, bins.count / 8)) {
            labels[i] = String(format: "%.2f", Double(bins[i].lowerMicros) / 1000)
        }
        html += SVGChart.bars(title: "Delay distribution", xLabel: "milliseconds (bin start; the last bin takes the rest)",
                              yLabel: "packets", values: bins.map { Double($0.count) }, color: "#ef6c00", labels: labels)

        html += "<h2>Loss per player</h2>\n"
        let losses = r.players.map { $0.continuity.lossFraction * 100 }
        var playerLabels: [Int: String] = [:]
        for i in stride(from: 0, to: r.players.count, by: max(1, r.players.count / 10)) { playerLabels[i] = "\(r.players[i].index)" }
        html += SVGChart.bars(title: "Loss per player", xLabel: "player", yLabel: "% of packets lost",
                              values: losses, color: "#c62828", labels: playerLabels,
                              yMax: (losses.max() ?? 0) > 0 ? nil : 1)

        html += "<h2>Players</h2>\n<table>\n<tr><th>#</th><th>stream</th><th>joined</th><th>join ms</th><th>packets</th>"
            + "<th>lost</th><th>dup</th><th>gaps</th><th>key frames</th><th>layer switches</th><th>delay p99</th><th>problem</th></tr>\n"
        for p in r.players.prefix(500) {
            let problem = p.problems.joined(separator: "; ")
            html += "<tr><td>\(p.index)</td><td>\(e(p.stream))</td><td>\(p.joined ? "yes" : "no")</td>"
                + "<td>\(p.joinMillis.map { String(format: "%.0f", $0) } ?? "-")</td><td>\(p.continuity.packets)</td>"
                + "<td>\(p.continuity.lost)</td><td>\(p.continuity.duplicates)</td><td>\(p.continuity.gaps)</td>"
                + "<td>\(p.keyFrames)</td><td>\(p.layerSwitches)</td>"
                + "<td>\(p.delayP99Micros.map(Format.millis) ?? "-")</td>"
                + "<td\(problem.isEmpty ? "" : " class=\"bad\"")>\(e(problem))</td></tr>\n"
        }
        html += "</table>\n"
        html += "<p>Generated by sluice-loadtest; the same figures are in result.json.</p>\n</body>\n</html>\n"
        return html
    }
}
