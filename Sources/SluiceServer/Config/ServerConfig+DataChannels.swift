import SluiceDataChannel

extension ServerConfig {
    /// `apps[i].dataChannels`: `{"enabled": true, "playersReachPlayers": false,
    /// "messagesPerSecond": 1000, "bytesPerSecond": 16777216}`, all optional (0: no limit).
    static func readDataChannels(_ app: ConfigReader, into entry: inout App) throws(ConfigError) {
        let section = try app.child("dataChannels", known: ["enabled", "playersReachPlayers", "messagesPerSecond",
                                                             "bytesPerSecond"])
        let defaults = DataChannelPolicy()
        guard try section.bool("enabled", default: true) else {
            entry.dataChannels = nil
            return
        }
        entry.dataChannels = DataChannelPolicy(
            playersReachPlayers: try section.bool("playersReachPlayers", default: defaults.playersReachPlayers),
            messagesPerSecond: try section.int("messagesPerSecond", default: defaults.messagesPerSecond, range: 0...10_000_000),
            bytesPerSecond: try section.int("bytesPerSecond", default: defaults.bytesPerSecond, range: 0...10_000_000_000))
    }
}
