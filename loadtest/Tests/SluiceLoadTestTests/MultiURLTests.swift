import Testing
@testable import SluiceLoadTest

struct MultiURLOptionTests {
    @Test func repeatedAndCommaSeparatedURLsAddUpInOrder() throws {
        let options = try LoadTestOptions.parse([
            "--url", "ws://127.0.0.1:9000/ws", "--url=ws://127.0.0.2:9000/ws, ws://localhost:9001/ws",
        ])
        #expect(options.urls == ["ws://127.0.0.1:9000/ws", "ws://127.0.0.2:9000/ws", "ws://localhost:9001/ws"])
        #expect(options.url == "ws://127.0.0.1:9000/ws")
        // One --url replaces the default rather than adding to it.
        #expect(try LoadTestOptions.parse(["--url", "ws://127.0.0.3/ws"]).urls == ["ws://127.0.0.3/ws"])
        #expect(LoadTestOptions().urls == ["ws://127.0.0.1:8080/ws"])
    }

    @Test(arguments: [
        (["--url", "ws://127.0.0.1/ws,"], "--url 'ws://127.0.0.1/ws,' has an empty entry"),
        (["--url", "ws://127.0.0.1:80/ws", "--url", "ws://localhost/ws"], "--url ws://127.0.0.1:80/ws is given twice"),
        (["--url", "ws://127.0.0.1/ws,ws://10.0.0.1/ws"],
         "--url host '10.0.0.1' is not in 127.0.0.0/8 or localhost: the load tester sends to loopback only"),
        (["--url", "ws://127.0.0.1/ws", "--url", "ws://127.0.0.2/ws", "--target", "janus"],
         "several --url work with --target sluice only"),
        (["--player-receive", "some"], "--player-receive must be full or headers, not 'some'"),
        (["--player-receive", "headers", "--ice-transport", "tcp"], "--player-receive headers works with --ice-transport udp only"),
        (["--player-receive", "headers", "--target", "janus"], "--player-receive headers works with --target sluice only"),
        (["--spawn-cpus", "0-1"], "--spawn-cpus needs --spawn"),
        (["--spawn", "x", "--spawn-cpus", "all"], "--spawn-cpus takes a CPU list like 0 or 0-1 or 0,2, not 'all'"),
        (["--spawn", "x", "--spawn-cpus", "0,"], "--spawn-cpus takes a CPU list like 0 or 0-1 or 0,2, not '0,'"),
    ])
    func badInputIsNamed(arguments: [String], message: String) {
        #expect(throws: OptionError(message)) { try LoadTestOptions.parse(arguments) }
    }

    @Test func receiveModeAndSpawnCPUsAreRead() throws {
        #expect(LoadTestOptions().playerReceive == .full)
        let options = try LoadTestOptions.parse(["--player-receive", "HEADERS", "--spawn", "x", "--spawn-cpus", "0,1"])
        #expect(options.playerReceive == .headers && options.spawnCPUs == "0,1")
        #expect(OptionError.help.description.contains("--player-receive") && OptionError.help.description.contains("--url URL[,URL...]"))
    }
}

struct PlayerPlacementTests {
    @Test func oneURLTakesEveryPlayer() {
        #expect((0..<20).allSatisfy { PlayerPlacement.urlIndex(player: $0, publishers: 3, urls: 1) == 0 })
    }

    @Test func oneStreamsPlayersAlternate() {
        #expect((0..<5).map { PlayerPlacement.urlIndex(player: $0, publishers: 1, urls: 2) } == [0, 1, 0, 1, 0])
        #expect((0..<6).map { PlayerPlacement.urlIndex(player: $0, publishers: 1, urls: 3) } == [0, 1, 2, 0, 1, 2])
    }

    /// Players go round robin over the publishers too: placing by the player's index alone
    /// would put all of publisher 0's players on URL 0 with 2 publishers and 2 URLs.
    @Test(arguments: [(2, 2, 40), (3, 2, 31), (2, 3, 25), (4, 4, 64), (1, 4, 7)])
    func everyStreamIsSpreadOverEveryURLEvenly(publishers: Int, urls: Int, players: Int) {
        for publisher in 0..<publishers {
            var perURL = [Int](repeating: 0, count: urls)
            for i in stride(from: publisher, to: players, by: publishers) {
                perURL[PlayerPlacement.urlIndex(player: i, publishers: publishers, urls: urls)] += 1
            }
            let audience = perURL.reduce(0, +)
            #expect(perURL.max()! - perURL.min()! <= 1, "publisher \(publisher): \(perURL)")
            if audience >= urls { #expect(perURL.allSatisfy { $0 > 0 }) }
        }
        #expect(PlayerPlacement.publisherURLIndex == 0)
    }

    @Test func tallyCountsPlayersPerURLInOrderAlsoAnEmptyOne() {
        func player(_ i: Int, _ url: String, joined: Bool, packets: UInt64) -> PlayerFigures {
            var c = ContinuityCounts()
            c.packets = packets
            return PlayerFigures(index: i, stream: "load-0", url: url, joined: joined, error: nil, joinMillis: nil,
                                 continuity: c, videoPackets: 0, audioPackets: 0, keyFrames: 0, lastKeyFrameWidth: nil,
                                 lastKeyFrameHeight: nil, layerChanges: 0, layerSwitches: 0, lastLayer: nil,
                                 delayP50Micros: nil, delayP99Micros: nil, ended: nil)
        }
        let a = "ws://127.0.0.1:1/ws", b = "ws://127.0.0.2:1/ws", c = "ws://127.0.0.3:1/ws"
        let tally = URLFigures.tally([player(0, a, joined: true, packets: 10), player(1, b, joined: true, packets: 7),
                                      player(2, a, joined: false, packets: 0)], urls: [a, b, c])
        #expect(tally == [URLFigures(url: a, players: 2, joined: 1, failed: 1, packets: 10),
                          URLFigures(url: b, players: 1, joined: 1, failed: 0, packets: 7),
                          URLFigures(url: c, players: 0, joined: 0, failed: 0, packets: 0)])
    }

    @Test func summaryListsPlayersPerURLWhenThereAreSeveral() {
        var result = ReportWriterTests.result()
        #expect(!SummaryTable.render(result).contains("  at ws://"))
        result.urls = ["ws://127.0.0.1:8080/ws", "ws://127.0.0.2:8080/ws"]
        result.totals.perURL = [URLFigures(url: result.urls[0], players: 2, joined: 2, failed: 0, packets: 2000),
                                URLFigures(url: result.urls[1], players: 2, joined: 1, failed: 1, packets: 1000)]
        let text = SummaryTable.render(result)
        #expect(text.contains("at ws://127.0.0.1:8080/ws") && text.contains("2/2, 2000 packets"))
        #expect(text.contains("at ws://127.0.0.2:8080/ws") && text.contains("1/2 (1 failed), 1000 packets"))
        #expect(text.contains("µs per received packet"))
    }
}
