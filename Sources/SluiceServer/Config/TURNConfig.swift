import SluiceJSON
import SluiceSignaling

/// `rtc.turn`: the TURN servers whose credentials `connect` hands out (docs/config.md, "TURN").
enum TURNConfig {
    /// Each entry `{urls, secret, ttlSeconds?}`; `urls` must be `turn:` or `turns:` URLs.
    static func parse(_ value: JSONValue, key: String) throws(ConfigError) -> [TURNServer] {
        guard let array = value.arrayValue else {
            throw ConfigError(key: key, problem: "must be an array of {urls, secret, ttlSeconds}, not \(value.kindDescription)")
        }
        var servers: [TURNServer] = []
        for (i, item) in array.enumerated() {
            let path = "\(key)[\(i)]"
            let entry = try ConfigReader(item, path: path, known: ["urls", "secret", "ttlSeconds"])
            let urls = try entry.strings("urls", default: [])
            if urls.isEmpty {
                throw ConfigError(key: "\(path).urls", problem: "is required: a non-empty array of turn: or turns: URLs")
            }
            for (j, url) in urls.enumerated() {
                if let problem = TURNServer.problem(withURL: url) {
                    throw ConfigError(key: "\(path).urls[\(j)]", problem: "\(problem), not \"\(url)\"")
                }
            }
            let secret = try entry.string("secret", default: "")
            if secret.isEmpty {
                throw ConfigError(key: "\(path).secret", problem: "is required: coturn's static-auth-secret")
            }
            // At least a minute, so a client can use it; at most a week, so a leaked one dies.
            let ttl = try entry.int("ttlSeconds", default: TURNServer.defaultTTLSeconds, range: 60...604_800)
            servers.append(TURNServer(urls: urls, secret: secret, ttlSeconds: ttl))
        }
        return servers
    }
}
