import Foundation
import SluiceVocabulary

/// Which server the scenario drives.
public enum LoadTestTarget: String, Sendable, Codable, CaseIterable {
    case sluice
    case janus
}

/// How the tester's connections reach Sluice: UDP, or ICE-TCP (the answer's passive TCP candidate).
public enum LoadTestICETransport: String, Sendable, Codable, CaseIterable {
    case udp, tcp
}

/// What a player does with each RTP packet. `full`: the SDK's whole receive path (SRTP
/// unprotect, then continuity, key frames and the publisher's send stamp in the payload).
/// `headers`: ICE and DTLS as ever, but the packet is read before SRTP and never unprotected:
/// continuity from the RTP header, which SRTP leaves in clear, and delay from the server's
/// abs-send-time stamp; no key frames, no payload. A cheaper player, so that one machine can
/// drive more of them (`PlayerHeaderReceiver`).
public enum PlayerReceiveMode: String, Sendable, Codable, CaseIterable {
    case full, headers
}

/// A player's `quality` constraint: the protocol's word, as the SDK and the server spell it.
public typealias PlayerQuality = StreamQuality

/// One scenario, from the command line (`LoadTestOptions.parse`). Every field has a default,
/// so `sluice-loadtest` alone runs 1 publisher and 10 players against 127.0.0.1:8080.
public struct LoadTestOptions: Sendable, Equatable, Codable {
    /// Signaling URLs: publishers use the first, players are spread over all of them
    /// (`PlayerPlacement`), so that one run can drive several servers or the nodes of a cluster.
    public var urls = ["ws://127.0.0.1:8080/ws"]
    public var target = LoadTestTarget.sluice
    public var appKey = "defaultApp"
    public var publishers = 1
    /// Players per publisher.
    public var players = 10
    /// The top layer's size and bitrate (kbit/s); with simulcast the lower layers are a half
    /// and a quarter of the size at a quarter and a sixteenth of the bitrate.
    public var videoWidth = 640
    public var videoHeight = 360
    public var videoBitrateKbps = 800
    public var fps = 30
    public var simulcast = false
    public var audio = true
    public var video = true
    /// Every connection of the run (publishers and players) uses this transport.
    public var iceTransport = LoadTestICETransport.udp
    public var quality: PlayerQuality?
    public var playerReceive = PlayerReceiveMode.full
    /// Players play with `wait: true` (`--play-wait`): a play that comes before its stream is
    /// known (on a cluster's edge, before the origin's record reached Redis) waits for it
    /// instead of failing with 1004.
    public var playWait = false
    /// Publishers publish with `record: true` (`--record`): the server records every stream
    /// (it needs `recording.folder`), for the CPU a recording adds.
    public var record = false
    public var maxWidth: Int?
    public var maxHeight: Int?
    /// Players that start joining per second.
    public var joinRate = 10.0
    /// Seconds of the run, counted from the first player's join; a join phase that takes
    /// longer makes the run longer.
    public var durationSeconds = 30.0
    public var keyFrameIntervalSeconds = 2.0
    public var outputDirectory = "loadtest-output"
    public var serverPID: Int32?
    public var spawnPath: String?
    public var spawnConfig: String?
    /// Run the spawned server under `taskset -c` with this CPU list (`--spawn-cpus`), so that a
    /// tester pinned to a core does not pin its server with it.
    public var spawnCPUs: String?
    public var assertNoLoss = false
    /// Stream names are `<prefix>-<publisher index>`.
    public var streamPrefix = "load"
    /// Client media threads, shared by every connection of the run.
    public var workers = 2
    /// Seconds a player may take from its first request to its first media packet.
    public var joinTimeoutSeconds = 30.0
    /// Janus only: the VideoRoom's room number (created, and destroyed at the end).
    public var janusRoom: Int?
    /// Janus only: the admin key or room-creation secret, when the server wants one.
    public var janusAdminKey: String?

    public init() {}

    /// Simulcast layers the publishers send.
    public var simulcastLayers: Int { simulcast ? 3 : 1 }

    public var expectedPlayers: Int { publishers * players }

    /// The first URL: the publishers', the spawned server's, Janus's.
    public var url: String { urls[0] }
}

/// A command-line mistake, said so that the user can fix it.
public struct OptionError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// `--help`: not a mistake; the caller prints `LoadTestOptions.usage` and exits 0.
    public static let help = OptionError(LoadTestOptions.usage)
}

extension LoadTestOptions {
    public static let usage = """
        usage: sluice-loadtest [options]
          --url URL[,URL...]        signaling WebSocket, 127.0.0.0/8 or localhost only (ws://127.0.0.1:8080/ws);
                                    give several (repeat --url or separate by commas) to spread the players
                                    round robin over them; publishers and --spawn use the first
          --target sluice|janus     server kind (sluice); janus drives a Janus VideoRoom
          --app-key KEY             app key for connect (defaultApp)
          --publishers N            publishers, one stream each (1)
          --players N               players per publisher (10)
          --video-size WxH          the publisher's top layer size (640x360)
          --video-bitrate KBPS      the top layer's bitrate (800)
          --fps N                   video frame rate (30)
          --simulcast on|off        send 3 layers: 1/4, 1/2 and full size (off)
          --audio on|off            Opus-sized audio, 50 packets/s (on)
          --video on|off            video (on)
          --ice-transport udp|tcp   media over UDP, or over ICE-TCP to the server's TCP port (udp)
          --quality low|medium|high|auto   players' quality constraint (none: the server's default)
          --width N, --height N     players' bounding box constraint
          --player-receive full|headers   full: SRTP unprotect and payload checks (full); headers: read the
                                    clear RTP header before SRTP, never unprotect: continuity, and delay from
                                    the server's abs-send-time stamp, no key frames (a cheaper player; UDP only)
          --play-wait on|off        players play with wait: true, so a play before the stream is known (a
                                    cluster's edge before the origin's record reached Redis) waits (off)
          --record on|off           publishers publish with record: true (the server needs recording.folder) (off)
          --join-rate R             players starting to join per second (10)
          --duration S              seconds from the first player's join to the end (30)
          --key-frame-interval S    seconds between key frames (2)
          --join-timeout S          seconds a player may take to get its first packet (30)
          --workers N               client media threads (2)
          --stream-prefix NAME      stream names are NAME-0, NAME-1, ... (load)
          --output DIR              where result.json and report.html go (loadtest-output)
          --server-pid PID          sample this server process's CPU time and RSS
          --spawn PATH              start this server binary, wait for /health, SIGTERM it at the end
          --spawn-config FILE       --config for the spawned server
          --spawn-cpus LIST         run the spawned server under taskset -c LIST (like 0-1)
          --janus-room N            Janus: the room number to create (random)
          --janus-admin-key KEY     Janus: admin_key for creating rooms, if the server sets one
          --assert-no-loss          exit 1 if a player lost, duplicated or skipped a packet, or failed to join
          --help                    this text
        """

    /// Reads `arguments` (without the program name). `--flag value` and `--flag=value` both work.
    public static func parse(_ arguments: [String]) throws(OptionError) -> LoadTestOptions {
        var options = LoadTestOptions()
        var rest = arguments[...]
        var sizeGiven = false
        var urlsGiven = false
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                throw OptionError("unexpected argument '\(argument)' (flags start with --; see --help)")
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(OptionError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = rest.popFirst() else { throw OptionError("\(name) needs a value") }
                return next
            }
            switch name {
            case "--help", "-h":
                throw OptionError.help
            case "--url":
                let text = try value()
                let parts = text.split(separator: ",", omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                guard !parts.contains(where: \.isEmpty) else { throw OptionError("--url '\(text)' has an empty entry") }
                if !urlsGiven { options.urls = [] }
                urlsGiven = true
                options.urls += parts
            case "--target":
                let text = try value()
                guard let target = LoadTestTarget(rawValue: text.lowercased()) else {
                    throw OptionError("--target must be sluice or janus, not '\(text)'")
                }
                options.target = target
            case "--app-key":
                options.appKey = try value()
                guard !options.appKey.isEmpty else { throw OptionError("--app-key must not be empty") }
            case "--publishers": options.publishers = try integer(name, try value(), in: 1...1000)
            case "--players": options.players = try integer(name, try value(), in: 0...10_000)
            case "--video-size":
                let text = try value()
                (options.videoWidth, options.videoHeight) = try size(name, text)
                sizeGiven = true
            case "--video-bitrate": options.videoBitrateKbps = try integer(name, try value(), in: 16...100_000)
            case "--fps": options.fps = try integer(name, try value(), in: 1...120)
            case "--simulcast": options.simulcast = try onOff(name, try value())
            case "--audio": options.audio = try onOff(name, try value())
            case "--video": options.video = try onOff(name, try value())
            case "--ice-transport":
                let text = try value()
                guard let transport = LoadTestICETransport(rawValue: text.lowercased()) else {
                    throw OptionError("--ice-transport must be udp or tcp, not '\(text)'")
                }
                options.iceTransport = transport
            case "--quality":
                let text = try value()
                guard let quality = PlayerQuality(rawValue: text.lowercased()) else {
                    throw OptionError("--quality must be low, medium, high or auto, not '\(text)'")
                }
                options.quality = quality
            case "--player-receive":
                let text = try value()
                guard let mode = PlayerReceiveMode(rawValue: text.lowercased()) else {
                    throw OptionError("--player-receive must be full or headers, not '\(text)'")
                }
                options.playerReceive = mode
            case "--play-wait": options.playWait = try onOff(name, try value())
            case "--record": options.record = try onOff(name, try value())
            case "--width": options.maxWidth = try integer(name, try value(), in: 1...16384)
            case "--height": options.maxHeight = try integer(name, try value(), in: 1...16384)
            case "--join-rate": options.joinRate = try number(name, try value(), in: 0.01...10_000)
            case "--duration": options.durationSeconds = try number(name, try value(), in: 0.5...86_400)
            case "--key-frame-interval": options.keyFrameIntervalSeconds = try number(name, try value(), in: 0.1...3600)
            case "--join-timeout": options.joinTimeoutSeconds = try number(name, try value(), in: 1...3600)
            case "--workers": options.workers = try integer(name, try value(), in: 1...64)
            case "--stream-prefix":
                let text = try value()
                let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~-")
                guard !text.isEmpty, text.count <= 100, text.allSatisfy(allowed.contains) else {
                    throw OptionError("--stream-prefix takes 1 to 100 of A-Z a-z 0-9 . _ ~ -, not '\(text)'")
                }
                options.streamPrefix = text
            case "--output":
                options.outputDirectory = try value()
                guard !options.outputDirectory.isEmpty else { throw OptionError("--output must not be empty") }
            case "--server-pid": options.serverPID = Int32(try integer(name, try value(), in: 1...Int(Int32.max)))
            case "--spawn":
                options.spawnPath = try value()
                guard options.spawnPath?.isEmpty == false else { throw OptionError("--spawn needs the server binary's path") }
            case "--spawn-config":
                options.spawnConfig = try value()
                guard options.spawnConfig?.isEmpty == false else { throw OptionError("--spawn-config needs a file") }
            case "--spawn-cpus":
                let text = try value()
                guard !text.isEmpty, text.count <= 100, text.allSatisfy({ "0123456789,-".contains($0) }),
                      text.first?.isNumber == true, text.last?.isNumber == true else {
                    throw OptionError("--spawn-cpus takes a CPU list like 0 or 0-1 or 0,2, not '\(text)'")
                }
                options.spawnCPUs = text
            case "--janus-room": options.janusRoom = try integer(name, try value(), in: 1...Int(Int32.max))
            case "--janus-admin-key": options.janusAdminKey = try value()
            case "--assert-no-loss":
                if let inlineValue { options.assertNoLoss = try onOff(name, inlineValue) } else { options.assertNoLoss = true }
            default:
                throw OptionError("unknown flag '\(name)' (see --help)")
            }
        }
        if options.simulcast && !sizeGiven {
            (options.videoWidth, options.videoHeight) = (1280, 720)
        }
        try options.validate()
        return options
    }

    /// Checks that need more than one flag.
    public func validate() throws(OptionError) {
        guard !urls.isEmpty else { throw OptionError("--url needs at least one URL") }
        var seen: Set<String> = []
        for text in urls {
            let checked = try LoopbackURL(text)
            guard seen.insert(checked.url.absoluteString).inserted else {
                throw OptionError("--url \(checked.url.absoluteString) is given twice")
            }
        }
        if urls.count > 1 && target == .janus {
            throw OptionError("several --url work with --target sluice only")
        }
        if playerReceive == .headers && target == .janus {
            throw OptionError("--player-receive headers works with --target sluice only")
        }
        if playerReceive == .headers && iceTransport == .tcp {
            throw OptionError("--player-receive headers works with --ice-transport udp only")
        }
        if spawnCPUs != nil && spawnPath == nil {
            throw OptionError("--spawn-cpus needs --spawn")
        }
        if serverPID != nil && spawnPath != nil {
            throw OptionError("--server-pid and --spawn exclude each other: give one")
        }
        if spawnConfig != nil && spawnPath == nil {
            throw OptionError("--spawn-config needs --spawn")
        }
        if !audio && !video {
            throw OptionError("--audio off and --video off leave nothing to send")
        }
        if record && target == .janus {
            throw OptionError("--record on works with --target sluice only")
        }
        if playWait && target == .janus {
            throw OptionError("--play-wait on works with --target sluice only")
        }
        if iceTransport == .tcp && target == .janus {
            throw OptionError("--ice-transport tcp works with --target sluice only")
        }
        if simulcast && !video {
            throw OptionError("--simulcast on needs --video on")
        }
        if simulcast && (videoWidth < 4 || videoHeight < 4) {
            throw OptionError("--simulcast on needs a --video-size of at least 4x4")
        }
    }

    static func integer(_ flag: String, _ text: String, in range: ClosedRange<Int>) throws(OptionError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw OptionError("\(flag) needs a whole number, not '\(text)'")
        }
        guard range.contains(value) else {
            throw OptionError("\(flag) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
        return value
    }

    static func number(_ flag: String, _ text: String, in range: ClosedRange<Double>) throws(OptionError) -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw OptionError("\(flag) needs a number, not '\(text)'")
        }
        guard range.contains(value) else {
            throw OptionError("\(flag) must be from \(format(range.lowerBound)) to \(format(range.upperBound)), not \(format(value))")
        }
        return value
    }

    static func onOff(_ flag: String, _ text: String) throws(OptionError) -> Bool {
        switch text.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw OptionError("\(flag) takes on or off, not '\(text)'")
        }
    }

    static func size(_ flag: String, _ text: String) throws(OptionError) -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw OptionError("\(flag) takes WIDTHxHEIGHT, like 1280x720, not '\(text)'")
        }
        // VP8's key-frame header holds 14 bits per dimension.
        guard (1...16383).contains(width), (1...16383).contains(height) else {
            throw OptionError("\(flag): width and height must be from 1 to 16383, not \(text)")
        }
        return (width, height)
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
