import Foundation

/// Everything a run measured: written as result.json, drawn as report.html, printed as the
/// summary table. Times are seconds unless the name says otherwise.
public struct LoadTestResult: Sendable, Equatable, Codable {
    public var tool = "sluice-loadtest"
    /// 2: `urls`, per-URL players, `tester`, `delaySource`.
    public var formatVersion = 2
    public var target: LoadTestTarget
    public var startedAt: String
    public var options: LoadTestOptions
    /// The first URL (the publishers').
    public var url: String
    /// Every URL players were spread over, as connected to (host as an address).
    public var urls: [String]
    /// From the first player's join to the last sample.
    public var measuredSeconds: Double
    public var publishers: [PublisherFigures]
    public var players: [PlayerFigures]
    public var totals: Totals
    public var delay: DelayFigures
    /// Delay from the first sample at which every join had finished (no handshakes in it).
    public var steadyDelay: DelayFigures?
    /// The length of that steady span.
    public var steadySeconds: Double?
    /// Bins of the merged one-way delay distribution (all players, both kinds).
    public var delayHistogram: [DelayBin]
    public var server: ServerFigures?
    /// The load tester's own media threads.
    public var clientCPUSeconds: Double?
    /// The load tester's whole process, and both per received packet.
    public var tester: TesterFigures?
    /// What the delay figures measure (`--player-receive`).
    public var delaySource: DelaySource
    public var samples: [RunSample]
    /// Empty when every player joined and saw no loss, duplicate or discontinuity.
    public var problems: [String]

    public struct Totals: Sendable, Equatable, Codable {
        public var expectedPlayers: Int
        public var joinedPlayers: Int
        public var failedPlayers: Int
        public var continuity: ContinuityCounts
        public var packetsPerSecond: Double
        public var keyFrames: UInt64
        public var layerSwitches: Int
        public var joinMillisP50: Double?
        public var joinMillisP99: Double?
        /// Players per URL, in `urls` order.
        public var perURL: [URLFigures]
    }

    /// Where a delay sample's start comes from.
    public enum DelaySource: String, Sendable, Codable {
        /// The publisher's send time inside the payload (`SendTimeProbe`): publisher to player.
        case publisherPayloadStamp
        /// The abs-send-time header extension the server writes into every packet it sends,
        /// with the time its worker received the publisher's packet: from the server's receive
        /// to the player. It leaves out the publisher's send and any wait in the server's socket
        /// buffer before the worker read the packet.
        case serverAbsSendTime
    }

    /// The load tester's own cost: what limits the figures on a small machine.
    public struct TesterFigures: Sendable, Equatable, Codable {
        /// The whole process (utime + stime from /proc/self/stat, 10 ms steps) over the measured span.
        public var cpuSeconds: Double
        public var cpuPercent: Double
        public var cpuMicrosPerPacket: Double?
        /// The media threads only (`clientCPUSeconds`) per received packet.
        public var mediaCPUMicrosPerPacket: Double?

        public init(cpuSeconds: Double, packets: UInt64, mediaCPUSeconds: Double?, measuredSeconds: Double) {
            self.cpuSeconds = cpuSeconds
            cpuPercent = measuredSeconds > 0 ? cpuSeconds / measuredSeconds * 100 : 0
            cpuMicrosPerPacket = packets > 0 ? cpuSeconds * 1e6 / Double(packets) : nil
            mediaCPUMicrosPerPacket = packets > 0 ? mediaCPUSeconds.map { $0 * 1e6 / Double(packets) } : nil
        }
    }

    public struct DelayFigures: Sendable, Equatable, Codable {
        public var count: UInt64
        public var meanMicros: Double
        public var p50Micros: UInt64?
        public var p90Micros: UInt64?
        public var p99Micros: UInt64?
        public var p999Micros: UInt64?
        public var maxMicros: UInt64?

        public init(_ d: DelayDistribution) {
            count = d.count
            meanMicros = d.meanMicros
            p50Micros = d.percentileMicros(0.5)
            p90Micros = d.percentileMicros(0.9)
            p99Micros = d.percentileMicros(0.99)
            p999Micros = d.percentileMicros(0.999)
            maxMicros = d.count > 0 ? d.maxMicros : nil
        }
    }

    public struct ServerFigures: Sendable, Equatable, Codable {
        public var pid: Int32
        public var spawned: Bool
        /// Server CPU time (user + system) over the measured span.
        public var cpuSeconds: Double
        /// `cpuSeconds` over every RTP packet the players received.
        public var cpuMicrosPerPacket: Double?
        /// The same from the moment every player had joined (no handshakes in it).
        public var steadyCPUMicrosPerPacket: Double?
        public var steadySeconds: Double?
        public var meanCPUPercent: Double
        public var maxRSSBytes: Int64
    }
}

public struct PublisherFigures: Sendable, Equatable, Codable {
    public var index: Int
    public var stream: String
    public var joined: Bool
    public var error: String?
    public var packetsSent: UInt64
    public var sendFailures: UInt64
    public var keyFramesSent: UInt64
}

public struct PlayerFigures: Sendable, Equatable, Codable {
    public var index: Int
    public var stream: String
    /// The URL it signaled on.
    public var url: String
    public var joined: Bool
    public var error: String?
    /// From the first request to the first media packet.
    public var joinMillis: Double?
    public var continuity: ContinuityCounts
    public var videoPackets: UInt64
    public var audioPackets: UInt64
    public var keyFrames: UInt64
    public var lastKeyFrameWidth: Int?
    public var lastKeyFrameHeight: Int?
    public var layerChanges: Int
    public var layerSwitches: Int
    public var lastLayer: Int?
    public var delayP50Micros: UInt64?
    public var delayP99Micros: UInt64?
    /// A status that ended the handle during the run.
    public var ended: String?

    /// What makes this player fail `--assert-no-loss`.
    public var problems: [String] {
        guard joined else { return ["did not join: \(error ?? "unknown")"] }
        var found = continuity.problems
        if let ended { found.append("ended during the run: \(ended)") }
        return found
    }
}

/// One progress sample (about once a second).
public struct RunSample: Sendable, Equatable, Codable {
    /// Since the first player's join.
    public var elapsedSeconds: Double
    public var joinedPlayers: Int
    public var packetsReceived: UInt64
    /// Over the interval since the previous sample.
    public var packetsPerSecond: Double
    public var lost: Int64
    public var delayP99Micros: UInt64?
    /// Of one core, over the interval; nil without a server process to watch.
    public var serverCPUPercent: Double?
    public var serverCPUMicros: UInt64?
    public var serverRSSBytes: Int64?
}

/// The players of one `--url`.
public struct URLFigures: Sendable, Equatable, Codable {
    public var url: String
    public var players: Int
    public var joined: Int
    public var failed: Int
    public var packets: UInt64

    /// One entry per URL, in order, also for a URL no player was placed on.
    public static func tally(_ players: [PlayerFigures], urls: [String]) -> [URLFigures] {
        urls.map { url in
            let mine = players.filter { $0.url == url }
            return URLFigures(url: url, players: mine.count, joined: mine.filter(\.joined).count,
                              failed: mine.filter { !$0.joined }.count,
                              packets: mine.reduce(0) { $0 + $1.continuity.packets })
        }
    }
}
