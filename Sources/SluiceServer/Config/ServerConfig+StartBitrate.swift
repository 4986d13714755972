extension ServerConfig {
    /// libwebrtc's floor for a bitrate is 30 kbit/s; above 100 Mbit/s a start bitrate is a typo.
    static let startBitrateRange = 30...100_000

    /// `apps[i].startBitrate`: `{"enabled": true, "defaultKbps": 2500}`, both optional.
    static func readStartBitrate(_ app: ConfigReader, into entry: inout App) throws(ConfigError) {
        let start = try app.child("startBitrate", known: ["enabled", "defaultKbps"])
        entry.startBitrateEnabled = try start.bool("enabled", default: true)
        entry.startBitrateDefaultKbps = start.object["defaultKbps"] == nil
            ? nil : try start.int("defaultKbps", default: 0, range: startBitrateRange)
    }
}
