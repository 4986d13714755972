import SluiceWire

/// The safe-default rule: a server that others can reach must not run with the admin token
/// everyone has read in conf/sluice.json. It refuses to start when all three hold:
/// 1. it binds or announces an address outside loopback (`server.host`, `rtc.bindAddress`,
///    `rtc.announcedAddresses`; the wildcards 0.0.0.0 and :: count as outside);
/// 2. `admin.token` is still the placeholder;
/// 3. `--insecure-dev` was not given.
/// An announced address counts although nothing binds it: announcing means that peers elsewhere
/// are meant to reach this server, and the HTTP port usually goes with them through a proxy.
public enum StartupCheck {
    /// The token shipped in conf/sluice.json.
    public static let placeholderAdminToken = "change-me-admin-token"

    /// The config's addresses outside loopback, each with the key it came from.
    public static func exposedAddresses(_ config: ServerConfig) -> [(key: String, address: String)] {
        var found: [(key: String, address: String)] = []
        if !isLoopback(config.httpHost) { found.append(("server.host", config.httpHost)) }
        if !isLoopback(config.rtcBindAddress) { found.append(("rtc.bindAddress", config.rtcBindAddress)) }
        for (i, address) in config.announcedAddresses.enumerated() where !isLoopback(address) {
            found.append(("rtc.announcedAddresses[\(i)]", address))
        }
        return found
    }

    /// The config error to stop with, or nil when the server may start. With `insecureDev` it
    /// is always nil; `warning(_:insecureDev:)` then says what was let through.
    public static func refusal(_ config: ServerConfig, insecureDev: Bool) -> ConfigError? {
        guard !insecureDev, let exposure = exposure(config) else { return nil }
        return ConfigError(key: "admin.token", problem:
            "is still the placeholder \"\(placeholderAdminToken)\", and \(exposure): anyone could use the admin "
            + "API with it. Set admin.token to a secret of your own, for example the output of "
            + "`openssl rand -hex 32`, or to \"\" to turn the admin API off; "
            + "or start with --insecure-dev to run anyway on a network you trust.")
    }

    /// What to log when `--insecure-dev` let a refused config start; nil when nothing was refused.
    public static func warning(_ config: ServerConfig, insecureDev: Bool) -> String? {
        guard insecureDev, let exposure = exposure(config) else { return nil }
        return "--insecure-dev: starting with the placeholder admin.token, although \(exposure)"
    }

    /// Why the placeholder token is a risk here, or nil when it is not.
    private static func exposure(_ config: ServerConfig) -> String? {
        guard config.adminToken == placeholderAdminToken else { return nil }
        let exposed = exposedAddresses(config)
        guard !exposed.isEmpty else { return nil }
        return "this server is reachable from other hosts ("
            + exposed.map { "\($0.key) \($0.address)" }.joined(separator: ", ") + ")"
    }

    /// 127.0.0.0/8, ::1 and IPv4-mapped 127.x (::ffff:127.0.0.1). A string that is not an
    /// address cannot occur (the config refuses it) and counts as exposed, to be safe.
    static func isLoopback(_ text: String) -> Bool {
        guard let address = SocketAddress(host: text, port: 0) else { return false }
        if address.isLoopback { return true }
        return address.family == .ipv6 && address.high == 0 && address.low >> 32 == 0xffff
            && (address.low >> 24) & 0xff == 127
    }
}
