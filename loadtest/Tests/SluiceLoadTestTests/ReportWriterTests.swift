import Foundation
import Testing
@testable import SluiceLoadTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Counts elements and fails on anything an XML parser refuses.
private final class XMLCheck: NSObject, XMLParserDelegate {
    var elements: [String: Int] = [:]
    var attributes: [String] = []
    var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes attributeDict: [String: String] = [:]) {
        elements[name, default: 0] += 1
        attributes += attributeDict.values
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    static func parse(_ document: String) -> (ok: Bool, check: XMLCheck, error: String) {
        let parser = XMLParser(data: Data(document.utf8))
        let check = XMLCheck()
        parser.delegate = check
        let ok = parser.parse()
        return (ok, check, parser.parserError.map { "\($0)" } ?? "")
    }
}

struct ReportWriterTests {
    static func result(players: Int = 4, problems: [String] = []) -> LoadTestResult {
        var options = LoadTestOptions()
        options.players = players
        var delay = DelayDistribution(counts: [0, 5, 40, 30, 10, 2, 1])
        delay.add(DelayDistribution(counts: [0, 1], overflow: 1, maxMicros: 130_000))
        let figures = (0..<players).map { i -> PlayerFigures in
            var c = ContinuityCounts()
            c.packets = 1000
            c.lost = Int64(i)
            return PlayerFigures(index: i, stream: "load-0", url: "ws://127.0.0.1:8080/ws", joined: i != 2, error: i == 2 ? "timed <out> & \"gone\"" : nil,
                                 joinMillis: i == 2 ? nil : 21.5, continuity: c, videoPackets: 700, audioPackets: 300,
                                 keyFrames: 3, lastKeyFrameWidth: 640, lastKeyFrameHeight: 360, layerChanges: 1,
                                 layerSwitches: 0, lastLayer: 0, delayP50Micros: 400, delayP99Micros: 2000, ended: nil)
        }
        var samples: [RunSample] = []
        for s in 1...5 {
            let cpu = Double(s * 7)
            let cpuMicros = UInt64(s) * 70_000
            samples.append(RunSample(elapsedSeconds: Double(s), joinedPlayers: min(s, players),
                                     packetsReceived: UInt64(s * 500), packetsPerSecond: 500, lost: 0,
                                     delayP99Micros: 1500, serverCPUPercent: cpu, serverCPUMicros: cpuMicros,
                                     serverRSSBytes: 40 << 20))
        }
        return LoadTestResult(
            target: .sluice, startedAt: "2026-11-29T17:00:00Z", options: options, url: "ws://127.0.0.1:8080/ws",
            urls: ["ws://127.0.0.1:8080/ws"],
            measuredSeconds: 5, publishers: [PublisherFigures(index: 0, stream: "load-0", joined: true, error: nil,
                                                              packetsSent: 700, sendFailures: 0, keyFramesSent: 3)],
            players: figures,
            totals: .init(expectedPlayers: players, joinedPlayers: players - 1, failedPlayers: 1,
                          continuity: figures.reduce(ContinuityCounts()) { $0 + $1.continuity }, packetsPerSecond: 800,
                          keyFrames: 12, layerSwitches: 0, joinMillisP50: 21.5, joinMillisP99: 21.5,
                          perURL: URLFigures.tally(figures, urls: ["ws://127.0.0.1:8080/ws"])),
            delay: .init(delay), steadyDelay: .init(delay), steadySeconds: 3, delayHistogram: delay.bins(10, upToMicros: 250),
            server: .init(pid: 42, spawned: true, cpuSeconds: 0.35, cpuMicrosPerPacket: 87.5, steadyCPUMicrosPerPacket: 80,
                          steadySeconds: 3, meanCPUPercent: 7, maxRSSBytes: 40 << 20),
            clientCPUSeconds: 0.2,
            tester: .init(cpuSeconds: 0.3, packets: 4000, mediaCPUSeconds: 0.2, measuredSeconds: 5),
            delaySource: .publisherPayloadStamp, samples: samples, problems: problems)
    }

    @Test func reportIsWellFormedSelfContainedXHTMLWithItsCharts() {
        let html = HTMLReport.render(Self.result(problems: ["player 2 (load-0): did not join: timed <out> & \"gone\""]))
        let (ok, check, error) = XMLCheck.parse(html)
        #expect(ok, "report.html is not well-formed: \(error)")
        // Server CPU, joined players, packets per second, delay distribution, loss per player.
        #expect(check.elements["svg"] == 5)
        #expect((check.elements["polyline"] ?? 0) >= 3)
        #expect((check.elements["rect"] ?? 0) >= 10 + 4)
        #expect(check.elements["script"] == nil && check.elements["link"] == nil && check.elements["img"] == nil)
        // Only namespace names look like URLs: nothing is fetched.
        let urls = html.components(separatedBy: "http").count - 1
        let namespaces = html.components(separatedBy: "xmlns=\"http").count - 1
        #expect(urls == namespaces)
        #expect(check.text.contains("timed <out> & \"gone\""))
        #expect(html.contains("timed &lt;out&gt; &amp; &quot;gone&quot;"))
    }

    @Test func reportWithoutServerSamplesOrPlayersIsStillWellFormed() {
        var result = Self.result(players: 0)
        result.server = nil
        result.samples = result.samples.map { var s = $0; s.serverCPUPercent = nil; return s }
        result.delayHistogram = []
        let html = HTMLReport.render(result)
        let (ok, check, error) = XMLCheck.parse(html)
        #expect(ok, "\(error)")
        #expect(check.elements["svg"] == 4)
        #expect(html.contains("Server CPU was not sampled"))
    }

    @Test func chartsEscapeTextAndStayInsideTheirBox() {
        let svg = SVGChart.lines(title: "a < b & \"c\"", xLabel: "x", yLabel: "y",
                                 series: [.init(name: "s", color: "#123456", points: [(0, 0), (1, .nan), (2, 1e9), (3, -5)])])
        let (ok, check, error) = XMLCheck.parse(svg)
        #expect(ok, "\(error)")
        #expect(check.elements["title"] == 1)
        let coordinates = check.attributes.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "," }) }.compactMap { Double($0) }
        #expect(coordinates.allSatisfy { $0 >= -720 && $0 <= 720 })
        let bars = SVGChart.bars(title: "t", xLabel: "x", yLabel: "y", values: [], color: "red")
        #expect(XMLCheck.parse(bars).ok && bars.contains("no data"))
    }

    @Test func niceAxisTops() {
        #expect(SVGChart.niceCeiling(0.7) == 1)
        #expect(SVGChart.niceCeiling(1.3) == 2)
        #expect(SVGChart.niceCeiling(43) == 50)
        #expect(SVGChart.niceCeiling(100) == 100)
        #expect(SVGChart.niceCeiling(0) == 1)
        #expect(SVGChart.niceCeiling(.infinity) == 1)
    }

    @Test func resultJSONRoundTripsAndNamesTheHeadlineFigures() throws {
        let result = Self.result()
        let data = try ResultWriter.json(result)
        let decoded = try JSONDecoder().decode(LoadTestResult.self, from: data)
        #expect(decoded == result)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let server = object?["server"] as? [String: Any]
        #expect(server?["cpuMicrosPerPacket"] as? Double == 87.5)
        #expect((object?["delay"] as? [String: Any])?["p99Micros"] != nil)
    }

    @Test func writerPutsBothFilesInTheFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loadtest-\(UUID().uuidString)/nested").path
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let paths = try ResultWriter.write(Self.result(), to: folder)
        #expect(FileManager.default.fileExists(atPath: paths.json) && FileManager.default.fileExists(atPath: paths.html))
        #expect(throws: LoadTestError.self) { try ResultWriter.write(Self.result(), to: "/proc/no-such-place") }
    }

    @Test func summaryNamesTheFiguresAndTheProblems() {
        let text = SummaryTable.render(Self.result(problems: ["player 2 (load-0): did not join: x"]))
        #expect(text.contains("server CPU per packet") && text.contains("87.50 µs"))
        #expect(text.contains("players joined") && text.contains("3/4 (1 failed)"))
        #expect(text.contains("  - player 2 (load-0): did not join: x"))
        let line = ProgressPrinter.line(Self.result().samples[2], expected: 4)
        #expect(line.contains("joined 3/4") && line.contains("delay p99 1.50 ms") && line.contains("server cpu 21%"))
    }
}
