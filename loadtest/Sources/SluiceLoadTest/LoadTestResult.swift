import Foundation

/// Everything a run measured: written as result.json, drawn as report.html, printed as the
/// summary table. Times are seconds unless the name says otherwise.
public struct LoadTestResult: Sendable, Equatable, Codable {
    public var tool = "sluice-loadtest"
    public var formatVersion = 1
    public var target: LoadTestTarget
    public var startedAt: String
    public var options: LoadTestOptions
    public var url: String
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
