import Foundation
@testable import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceSignaling
import SluiceVocabulary
import Testing
@testable import SluiceServer

@Suite(.serialized) struct AdminAPIMetricsTests {
    @Test func labelValuesAndHelpAreEscaped() {
        #expect(PrometheusText.escapeLabelValue(#"a"b\c"# + "\nd") == #"a\"b\\c\nd"#)
        #expect(PrometheusText.escapeLabelValue("plain-name_1.2~") == "plain-name_1.2~")
        #expect(PrometheusText.escapeLabelValue("é日本") == "é日本")
        #expect(PrometheusText.escapeHelp("one\\two\nthree \"quoted\"") == #"one\\two\nthree "quoted""#)
    }

    @Test func valuesUseGoFloatSyntax() {
        #expect(PrometheusText.format(.double(.nan)) == "NaN")
        #expect(PrometheusText.format(.double(.infinity)) == "+Inf")
        #expect(PrometheusText.format(.double(-.infinity)) == "-Inf")
        #expect(PrometheusText.format(.double(800)) == "800")
        #expect(PrometheusText.format(.double(-3)) == "-3")
        #expect(PrometheusText.format(.double(1.5)) == "1.5")
        #expect(PrometheusText.format(.unsigned(UInt64.max)) == "18446744073709551615")
        #expect(PrometheusText.format(.integer(-7)) == "-7")
        #expect(Double(PrometheusText.format(.double(1e-7))) == 1e-7)
    }

    @Test func familiesRenderHelpTypeThenSamples() {
        var counter = PrometheusMetricFamily(name: "x_total", help: "Things\ncounted.", kind: .counter)
        counter.add(UInt64(3), labels: [("app", "a\"pp"), ("stream", "s")])
        counter.add(UInt64(4), labels: [("app", "b"), ("stream", "t")])
        var gauge = PrometheusMetricFamily(name: "y", help: "A gauge.", kind: .gauge)
        gauge.add(2.5)
        let empty = PrometheusMetricFamily(name: "z", help: "Nothing yet.", kind: .gauge)
        let text = PrometheusText.render([counter, gauge, empty])
        #expect(text == """
            # HELP x_total Things\\ncounted.
            # TYPE x_total counter
            x_total{app="a\\"pp",stream="s"} 3
            x_total{app="b",stream="t"} 4
            # HELP y A gauge.
            # TYPE y gauge
            y 2.5
            # HELP z Nothing yet.
            # TYPE z gauge

            """)
    }

    @Test func perStreamFiguresSumThePlayers() {
        var publisherVideo = KindStats()
        publisherVideo.packets = 100
        publisherVideo.keyFrames = 3
        publisherVideo.packetsLost = -2
        var playerVideo = KindStats()
        playerVideo.packets = 40
        playerVideo.nacks = 1
        playerVideo.bitrateKbps = 250.5
        let view = StreamViewFactory.make(
            name: "cam", publisher: HandleStats(handle: "pub-1", stream: "cam", role: .publish, audio: nil, video: publisherVideo),
            session: "s1",
            players: [HandleStats(handle: "play-1", stream: "cam", role: .play, audio: nil, video: playerVideo),
                      HandleStats(handle: "play-2", stream: "cam", role: .play, audio: nil, video: playerVideo)])
        let waiting = StreamViewFactory.make(
            name: "later", publisher: nil, session: nil,
            players: [HandleStats(handle: "play-3", stream: "later", role: .play, audio: nil, video: nil)])
        let input = AdminMetrics.Input(version: "9.9", uptimeSeconds: 5, sessions: 3, streams: [view, waiting],
                                       appOf: { $0 == "s1" ? "my\"app" : nil },
                                       workers: [(0, 10, 20, 1, 12), (1, 0, 0, 0, 0)],
                                       forwardDelays: [(0, [5, 3, 0, 0, 0, 0, 0, 0, 0, 2])],
                                       tcp: [AdminTCPMetrics.Worker(index: 1, open: 2, accepted: 5, refused: 1,
                                                                    closedForBadInput: 2, framesReceived: 300,
                                                                    framesSent: 400, sendDropped: 7)])
        let text = PrometheusText.render(AdminMetrics.families(input))
        let lines = Set(text.split(separator: "\n").map(String.init))
        let base = #"app="my\"app",stream="cam""#
        for expected in [
            "sluice_up 1", "sluice_sessions 3", "sluice_streams 1", "sluice_players 3", "sluice_uptime_seconds 5",
            #"sluice_build_info{version="9.9"} 1"#,
            "sluice_stream_packets_total{\(base),role=\"publish\",kind=\"video\"} 100",
            "sluice_stream_packets_total{\(base),role=\"play\",kind=\"video\"} 80",
            "sluice_stream_nacks_total{\(base),role=\"play\",kind=\"video\"} 2",
            "sluice_stream_bitrate_kbps{\(base),role=\"play\",kind=\"video\"} 501",
            "sluice_stream_key_frames_total{\(base),role=\"publish\",kind=\"video\"} 3",
            "sluice_stream_packets_lost_total{\(base),role=\"publish\",kind=\"video\"} 0",
            "sluice_stream_players{\(base)} 2",
            "sluice_stream_muted{\(base),kind=\"video\"} 0",
            #"sluice_worker_datagrams_received_total{worker="0"} 10"#,
            #"sluice_worker_datagrams_sent_total{worker="0"} 20"#,
            #"sluice_worker_datagrams_dropped_total{worker="0"} 1"#,
            #"sluice_worker_send_messages_total{worker="0"} 12"#,
            // Cumulative, as Prometheus buckets are.
            #"sluice_worker_forward_delay_datagrams_total{worker="0",le_us="25"} 5"#,
            #"sluice_worker_forward_delay_datagrams_total{worker="0",le_us="50"} 8"#,
            #"sluice_worker_forward_delay_datagrams_total{worker="0",le_us="10000"} 8"#,
            #"sluice_worker_forward_delay_datagrams_total{worker="0",le_us="+Inf"} 10"#,
            #"sluice_worker_tcp_connections{worker="1"} 2"#,
            #"sluice_worker_tcp_connections_accepted_total{worker="1"} 5"#,
            #"sluice_worker_tcp_connections_refused_total{worker="1"} 1"#,
            #"sluice_worker_tcp_connections_closed_bad_input_total{worker="1"} 2"#,
            #"sluice_worker_tcp_frames_received_total{worker="1"} 300"#,
            #"sluice_worker_tcp_frames_sent_total{worker="1"} 400"#,
            #"sluice_worker_tcp_send_dropped_packets_total{worker="1"} 7"#,
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
        // No audio figures where no side has audio, and none for a stream without a publisher.
        #expect(!text.contains("role=\"publish\",kind=\"audio\""))
        #expect(!text.contains(#"stream="later""#))
        #expect(throws: Never.self) { try PrometheusSyntax.check(text) }
    }

    @Test func metricsRouteServesWellFormedText() throws {
        let fixture = try AdminFixture(appKeys: ["we\"ird\\app\nkey"])
        let (session, output, _) = try fixture.connect(appKey: "we\"ird\\app\nkey")
        _ = try fixture.call("publish", stream: "cam6", session: session, output: output, id: 2)
        let response = fixture.request("GET", "/metrics", token: nil)
        #expect(response.status == 200)
        #expect(response.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = String(decoding: response.body, as: UTF8.self)
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains("sluice_up 1"))
        #expect(lines.contains("sluice_streams 1"))
        #expect(lines.contains("sluice_sessions 1"))
        #expect(lines.contains(#"sluice_stream_players{app="we\"ird\\app\nkey",stream="cam6"} 0"#))
        #expect(lines.contains(#"sluice_worker_datagrams_received_total{worker="0"} 0"#))
        #expect(throws: Never.self) { try PrometheusSyntax.check(text) }
    }
}

/// `StreamView`'s memberwise initializer is internal to SluiceControl (hence `@testable`).
enum StreamViewFactory {
    static func make(name: String, publisher: HandleStats?, session: SessionID?, players: [HandleStats]) -> StreamView {
        StreamView(name: name, publisher: publisher, publisherSession: session, players: players,
                   audioMuted: MuteState(), videoMuted: MuteState())
    }
}

/// A strict reader of the 0.0.4 text format, enough to catch what a scraper would reject.
enum PrometheusSyntax {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func check(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Failure(description: "the text must end with a line feed") }
        var typed: [String: String] = [:]
        var helped: Set<String> = []
        var finished: Set<String> = []
        var current: String?
        let metricName = #"[a-zA-Z_:][a-zA-Z0-9_:]*"#
        let labelValue = #""(?:[^"\\\n]|\\\\|\\"|\\n)*""#
        let label = #"[a-zA-Z_][a-zA-Z0-9_]*="# + labelValue
        let sample = try NSRegularExpression(pattern: "^(\(metricName))(\\{\(label)(,\(label))*\\})? (\\S+)$")
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let line = String(line)
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ", maxSplits: 3)
                guard parts.count >= 4 else { throw Failure(description: "short comment: \(line)") }
                let name = String(parts[2])
                if let current, current != name { finished.insert(current) }
                guard !finished.contains(name) else { throw Failure(description: "\(name) is split: \(line)") }
                current = name
                if parts[1] == "HELP" {
                    guard helped.insert(name).inserted else { throw Failure(description: "second HELP for \(name)") }
                } else {
                    guard typed[name] == nil else { throw Failure(description: "second TYPE for \(name)") }
                    guard ["counter", "gauge"].contains(String(parts[3])) else { throw Failure(description: line) }
                    typed[name] = String(parts[3])
                }
                continue
            }
            let range = NSRange(line.startIndex..., in: line)
            guard let match = sample.firstMatch(in: line, range: range),
                  let nameRange = Range(match.range(at: 1), in: line),
                  let valueRange = Range(match.range(at: 4), in: line) else {
                throw Failure(description: "not a sample: \(line)")
            }
            let name = String(line[nameRange])
            guard name == current, let type = typed[name] else { throw Failure(description: "\(name) has no TYPE just before it") }
            if type == "counter" && !name.hasSuffix("_total") { throw Failure(description: "counter \(name) lacks _total") }
            let value = String(line[valueRange])
            guard Double(value) != nil || ["NaN", "+Inf", "-Inf"].contains(value) else {
                throw Failure(description: "bad value: \(line)")
            }
        }
    }
}
