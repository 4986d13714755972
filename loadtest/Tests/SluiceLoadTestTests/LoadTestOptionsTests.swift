import Testing
@testable import SluiceLoadTest

struct LoadTestOptionsTests {
    @Test func noFlagsGiveTheDefaults() throws {
        let options = try LoadTestOptions.parse([])
        #expect(options == LoadTestOptions())
        #expect(options.url == "ws://127.0.0.1:8080/ws" && options.publishers == 1 && options.players == 10)
        #expect(options.simulcastLayers == 1 && options.expectedPlayers == 10 && !options.assertNoLoss)
    }

    @Test func everyFlagIsRead() throws {
        let options = try LoadTestOptions.parse([
            "--url", "ws://localhost:9000/ws", "--app-key", "studio", "--publishers", "2", "--players=50",
            "--video-size", "1920x1080", "--video-bitrate", "2500", "--fps", "25", "--simulcast", "on",
            "--audio", "off", "--quality", "LOW", "--width", "640", "--height=360", "--join-rate", "12.5",
            "--duration", "6", "--key-frame-interval", "0.5", "--output", "out/dir", "--server-pid", "4242",
            "--assert-no-loss", "--workers", "3", "--stream-prefix", "cam_1", "--join-timeout", "5",
        ])
        #expect(options.url == "ws://localhost:9000/ws" && options.appKey == "studio")
        #expect(options.publishers == 2 && options.players == 50 && options.expectedPlayers == 100)
        #expect(options.videoWidth == 1920 && options.videoHeight == 1080 && options.videoBitrateKbps == 2500)
        #expect(options.fps == 25 && options.simulcast && options.simulcastLayers == 3 && !options.audio)
        #expect(options.quality == .low && options.maxWidth == 640 && options.maxHeight == 360)
        #expect(options.joinRate == 12.5 && options.durationSeconds == 6 && options.keyFrameIntervalSeconds == 0.5)
        #expect(options.outputDirectory == "out/dir" && options.serverPID == 4242 && options.assertNoLoss)
        #expect(options.workers == 3 && options.streamPrefix == "cam_1" && options.joinTimeoutSeconds == 5)
    }

    @Test func simulcastDefaultsToA720pTopLayerUnlessASizeIsGiven() throws {
        let simulcast = try LoadTestOptions.parse(["--simulcast", "on"])
        #expect(simulcast.videoWidth == 1280 && simulcast.videoHeight == 720)
        let sized = try LoadTestOptions.parse(["--video-size", "320x240", "--simulcast", "yes"])
        #expect(sized.videoWidth == 320 && sized.videoHeight == 240)
    }

    @Test func playWaitIsOffUnlessAsked() throws {
        #expect(!(try LoadTestOptions.parse([])).playWait)
        #expect(try LoadTestOptions.parse(["--play-wait", "on"]).playWait)
        #expect(throws: OptionError("--play-wait on works with --target sluice only")) {
            try LoadTestOptions.parse(["--play-wait", "on", "--target", "janus", "--url", "ws://127.0.0.1:8188/"])
        }
    }

    @Test func recordIsOffUnlessAsked() throws {
        #expect(!(try LoadTestOptions.parse([])).record)
        #expect(try LoadTestOptions.parse(["--record", "on"]).record)
        #expect(throws: OptionError("--record on works with --target sluice only")) {
            try LoadTestOptions.parse(["--record", "on", "--target", "janus", "--url", "ws://127.0.0.1:8188/"])
        }
    }

    @Test func spawnAndItsConfig() throws {
        let options = try LoadTestOptions.parse(["--spawn", ".build/release/sluice", "--spawn-config", "conf/x.json"])
        #expect(options.spawnPath == ".build/release/sluice" && options.spawnConfig == "conf/x.json")
    }

    @Test(arguments: [
        (["--players"], "--players needs a value"),
        (["--players", "many"], "--players needs a whole number, not 'many'"),
        (["--players", "-1"], "--players must be from 0 to 10000, not -1"),
        (["--publishers", "0"], "--publishers must be from 1 to 1000, not 0"),
        (["--join-rate", "0"], "--join-rate must be from 0.01 to 10000, not 0"),
        (["--duration", "nan"], "--duration needs a number, not 'nan'"),
        (["--duration", "inf"], "--duration needs a number, not 'inf'"),
        (["--simulcast", "maybe"], "--simulcast takes on or off, not 'maybe'"),
        (["--quality", "ultra"], "--quality must be low, medium, high or auto, not 'ultra'"),
        (["--video-size", "640"], "--video-size takes WIDTHxHEIGHT, like 1280x720, not '640'"),
        (["--video-size", "0x10"], "--video-size: width and height must be from 1 to 16383, not 0x10"),
        (["--target", "mediasoup"], "--target must be sluice or janus, not 'mediasoup'"),
        (["--bogus"], "unknown flag '--bogus' (see --help)"),
        (["players"], "unexpected argument 'players' (flags start with --; see --help)"),
        (["--stream-prefix", "a b"], "--stream-prefix takes 1 to 100 of A-Z a-z 0-9 . _ ~ -, not 'a b'"),
        (["--server-pid", "1", "--spawn", "x"], "--server-pid and --spawn exclude each other: give one"),
        (["--spawn-config", "x.json"], "--spawn-config needs --spawn"),
        (["--audio", "off", "--video", "off"], "--audio off and --video off leave nothing to send"),
        (["--simulcast", "on", "--video", "off"], "--simulcast on needs --video on"),
        (["--app-key="], "--app-key must not be empty"),
    ])
    func badInputIsNamed(arguments: [String], message: String) {
        #expect(throws: OptionError(message)) { try LoadTestOptions.parse(arguments) }
    }

    @Test func helpIsNotAMistake() {
        #expect(throws: OptionError.help) { try LoadTestOptions.parse(["--players", "3", "--help"]) }
        #expect(OptionError.help.description.contains("--assert-no-loss"))
    }
}

struct LoopbackURLTests {
    @Test func loopbackHostsAreTakenAndLocalhostBecomes127001() throws {
        let local = try LoopbackURL("ws://localhost:8080/ws")
        #expect(local.host == "127.0.0.1" && local.port == 8080 && local.path == "/ws")
        #expect(local.url.absoluteString == "ws://127.0.0.1:8080/ws")
        let other = try LoopbackURL("WS://127.10.20.30/sig?x=1")
        #expect(other.host == "127.10.20.30" && other.port == 80 && other.path == "/sig?x=1")
        #expect(try LoopbackURL("ws://127.0.0.1:1").path == "/")
    }

    @Test(arguments: [
        "ws://0.0.0.0:8080/ws", "ws://[::1]:8080/ws", "ws://localhost.example:8080/ws", "ws://127.0.0:8080/ws",
        "ws://127.0.0.256:8080/ws", "ws://127.0.0.01x:8080/ws", "ws://1270.0.0.1/ws", "ws://127.0.0.1.5/ws",
    ])
    func anythingPastLoopbackIsRefused(url: String) {
        #expect(throws: OptionError.self) { try LoopbackURL(url) }
        #expect(throws: OptionError.self) { try LoadTestOptions.parse(["--url", url]) }
    }

    @Test func otherSchemesAndNonURLsAreRefused() {
        #expect(throws: OptionError("--url must be ws:// (no TLS on loopback), not wss://")) { try LoopbackURL("wss://127.0.0.1/ws") }
        #expect(throws: OptionError("--url must be ws:// (no TLS on loopback), not http://")) { try LoopbackURL("http://127.0.0.1/ws") }
        #expect(throws: OptionError.self) { try LoopbackURL("not a url") }
        #expect(throws: OptionError.self) { try LoopbackURL("ws://user:pw@127.0.0.1/ws") }
        #expect(throws: OptionError.self) { try LoopbackURL("ws://127.0.0.1:70000/ws") }
    }
}
