import SluiceJSON
import Testing
@testable import SluiceServer

/// The refusal to start with the placeholder admin token on a server others can reach.
struct StartupCheckTests {
    static func config(host: String = "127.0.0.1", bind: String = "127.0.0.1", announced: [String] = ["127.0.0.1"],
                       token: String = StartupCheck.placeholderAdminToken) -> ServerConfig {
        var config = ServerConfig()
        config.httpHost = host
        config.rtcBindAddress = bind
        config.announcedAddresses = announced
        config.adminToken = token
        return config
    }

    @Test func theShippedConfigStartsAsItIs() throws {
        let config = try ServerConfig.load(path: #filePath.replacingOccurrences(
            of: "Tests/SluiceServerTests/StartupCheckTests.swift", with: "conf/sluice.json"))
        #expect(config.adminToken == StartupCheck.placeholderAdminToken, "the placeholder is the shipped one")
        #expect(StartupCheck.refusal(config, insecureDev: false) == nil)
    }

    /// Each address key alone, with the placeholder and no flag, refuses; the error names it.
    @Test(arguments: [
        (config(host: "0.0.0.0"), "server.host 0.0.0.0"),
        (config(host: "::"), "server.host ::"),
        (config(host: "192.0.2.10"), "server.host 192.0.2.10"),
        (config(bind: "0.0.0.0"), "rtc.bindAddress 0.0.0.0"),
        (config(bind: "2001:db8::5"), "rtc.bindAddress 2001:db8::5"),
        (config(announced: ["127.0.0.1", "203.0.113.7"]), "rtc.announcedAddresses[1] 203.0.113.7"),
        (config(announced: ["::ffff:198.51.100.1"]), "rtc.announcedAddresses[0] ::ffff:198.51.100.1"),
    ])
    func anExposedAddressWithThePlaceholderRefuses(config: ServerConfig, named: String) throws {
        let refusal = try #require(StartupCheck.refusal(config, insecureDev: false))
        #expect(refusal.key == "admin.token")
        #expect(refusal.problem.contains(named), "\(refusal.problem)")
        #expect(refusal.problem.contains("openssl rand -hex 32"))
        #expect(refusal.problem.contains("--insecure-dev"))
        #expect(refusal.description.hasPrefix("config: 'admin.token' is still the placeholder \"change-me-admin-token\""))
        // The override lets it start, and says so in the log.
        #expect(StartupCheck.refusal(config, insecureDev: true) == nil)
        let warning = try #require(StartupCheck.warning(config, insecureDev: true))
        #expect(warning.contains(named))
        #expect(StartupCheck.warning(config, insecureDev: false) == nil)
    }

    /// Loopback in every spelling is not exposed.
    @Test(arguments: ["127.0.0.1", "127.8.9.10", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"])
    func loopbackAddressesDoNotRefuse(address: String) {
        let config = Self.config(host: address, bind: address, announced: [address])
        #expect(StartupCheck.exposedAddresses(config).isEmpty)
        #expect(StartupCheck.refusal(config, insecureDev: false) == nil)
        #expect(StartupCheck.warning(config, insecureDev: true) == nil)
    }

    /// A token of one's own, or none (the admin API off), starts anywhere.
    @Test(arguments: ["0123456789abcdef", "", "change-me-admin-token2"])
    func anotherTokenStartsAnywhere(token: String) {
        let config = Self.config(host: "0.0.0.0", bind: "0.0.0.0", announced: ["203.0.113.7"], token: token)
        #expect(StartupCheck.exposedAddresses(config).count == 3)
        #expect(StartupCheck.refusal(config, insecureDev: false) == nil)
    }

    @Test func theWildcardsAndOthersAreNotLoopback() {
        for address in ["0.0.0.0", "::", "198.51.100.1", "128.0.0.1", "::2", "::ffff:128.0.0.1", "not an address"] {
            #expect(!StartupCheck.isLoopback(address), "\(address)")
        }
    }
}
