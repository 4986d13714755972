import SluiceSignaling

extension ServerConfig {
    /// `apps[i].precall`: `{"enabled": true, "perMinute": 30, "seconds": 8, "maxKbps": 10000}`,
    /// all optional (docs/protocol.md section 6, "Pre-call test").
    static func readPrecall(_ app: ConfigReader, into entry: inout App) throws(ConfigError) {
        let section = try app.child("precall", known: ["enabled", "perMinute", "seconds", "maxKbps"])
        let defaults = PrecallPolicy()
        guard try section.bool("enabled", default: true) else {
            entry.precall = nil
            return
        }
        entry.precall = PrecallPolicy(
            perMinute: try section.int("perMinute", default: defaults.perMinute, range: 1...100_000),
            seconds: try section.int("seconds", default: defaults.seconds, range: 1...PrecallPolicy.maxSeconds),
            maxKbps: try section.int("maxKbps", default: defaults.maxKbps, range: 300...100_000))
    }
}
