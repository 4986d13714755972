import Foundation
import SluiceJSON
import SluiceSignaling

/// `sluice token create --app KEY [--identity ID] [--publish NAMES] [--play NAMES] [--ttl 1h]
/// [--record] [--admin] [--max-bitrate N] [--max-width N] [--max-height N] [--max-fps N]
/// [--config FILE]`: prints an access token signed with the app's first secret in the config
/// (docs/protocol.md section 6, "Access tokens"). A library type, so tests run it in-process.
public struct TokenCommand: Equatable {
    public var configPath = "conf/sluice.json"
    public var appKey = ""
    public var identity: String?
    public var publish: [String] = []
    public var play: [String] = []
    public var ttlSeconds = 3600
    public var record = false
    public var admin = false
    public var caps: [(claim: String, value: Int)] = []

    public static let usage = """
        usage: sluice token create --app KEY [--identity ID] [--publish NAMES] [--play NAMES] [--ttl 1h]
                                   [--record] [--admin] [--max-bitrate KBPS] [--max-width PX]
                                   [--max-height PX] [--max-fps FPS] [--config FILE]
          NAMES: comma-separated stream names or prefixes ending in '*' ('cam-*,lobby')
          TTL: a number with s, m, h or d (default 1h)
        """

    public struct UsageError: Error, CustomStringConvertible {
        public var description: String
    }

    public init() {}

    /// The arguments after `token`.
    public init(arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        guard rest.popFirst() == "create" else { throw UsageError(description: "the only token command is 'create'") }
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst(), !next.hasPrefix("--") else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        func number(_ flag: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let n = Int(text), range.contains(n) else {
                throw UsageError(description: "\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return n
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--app": appKey = try value(flag)
            case "--identity": identity = try value(flag)
            case "--publish": publish = Self.names(try value(flag))
            case "--play": play = Self.names(try value(flag))
            case "--ttl":
                let text = try value(flag)
                guard let seconds = Self.duration(text) else {
                    throw UsageError(description: "--ttl must be a number with s, m, h or d (30m, 1h, 7d), not '\(text)'")
                }
                ttlSeconds = seconds
            case "--record": record = true
            case "--admin": admin = true
            case "--max-bitrate": caps.append(("maxBitrateKbps", try number(flag, 1...10_000_000)))
            case "--max-width": caps.append(("maxWidth", try number(flag, 1...16384)))
            case "--max-height": caps.append(("maxHeight", try number(flag, 1...16384)))
            case "--max-fps": caps.append(("maxFps", try number(flag, 1...1000)))
            case "--config", "-c": configPath = try value(flag)
            default: throw UsageError(description: "unknown argument '\(flag)'")
            }
        }
        guard !appKey.isEmpty else { throw UsageError(description: "--app is required") }
    }

    /// The token for `config`, issued `now` (seconds since the epoch).
    public func token(config: ServerConfig, now: Double = Date().timeIntervalSince1970) throws(UsageError) -> String {
        guard let app = config.apps.first(where: { $0.key == appKey }) else {
            throw UsageError(description: "no app with key '\(appKey)' in \(configPath)")
        }
        guard let secret = app.secrets.first else {
            throw UsageError(description: "app '\(appKey)' has no secrets in \(configPath): add apps[].secrets")
        }
        let issued = Int64(now)
        var claims: JSONObject = ["iss": .string(appKey)]
        if let identity { claims["sub"] = .string(identity) }
        claims["iat"] = JSONValue(issued)
        claims["exp"] = JSONValue(issued + Int64(ttlSeconds))
        claims["publish"] = .array(publish.map { .string($0) })
        claims["play"] = .array(play.map { .string($0) })
        for (claim, value) in caps { claims[claim] = JSONValue(value) }
        if record { claims["record"] = true }
        if admin { claims["admin"] = true }
        return AccessTokenSigner.sign(claims: claims, secret: secret)
    }

    static func names(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// "90s", "30m", "1h", "7d"; a bare number is seconds.
    static func duration(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last, let factor = units[last] {
            unit = factor
            digits = digits.dropLast()
        }
        guard let n = Int(digits), n > 0, n <= 366 * 86400 / unit else { return nil }
        return n * unit
    }

    public static func == (a: TokenCommand, b: TokenCommand) -> Bool {
        a.configPath == b.configPath && a.appKey == b.appKey && a.identity == b.identity && a.publish == b.publish
            && a.play == b.play && a.ttlSeconds == b.ttlSeconds && a.record == b.record && a.admin == b.admin
            && a.caps.map(\.claim) == b.caps.map(\.claim) && a.caps.map(\.value) == b.caps.map(\.value)
    }
}
