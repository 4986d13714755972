import Foundation
import SluiceJSON
import SluiceJSONParser
@testable import SluiceServer
import SluiceSignaling
import Testing

@Suite struct TokenCommandTests {
    static let secret = "a-token-command-secret-of-32-bytes"

    static func config() throws -> ServerConfig {
        try ServerConfig.parse(JSONValue.parse(#"{"apps":[{"key":"studio","secrets":["\#(secret)","a-second-secret-that-is-32-bytes!"]}]}"#))
    }

    @Test func createPrintsATokenTheServerAccepts() throws {
        let command = try TokenCommand(arguments: ["create", "--app", "studio", "--identity", "alice",
                                                   "--publish", "cam*,studio", "--play", "*", "--ttl", "2h",
                                                   "--record", "--max-width", "640", "--max-bitrate", "900"])
        let now = 1_800_000_000.0
        let text = try command.token(config: try Self.config(), now: now)
        let verifier = AccessTokenVerifier(secrets: ["studio": [Self.secret]])
        let token = try verifier.verify(text, now: now + 7000)
        #expect(token.appKey == "studio")
        #expect(token.identity == "alice")
        #expect(token.expiresAt == now + 7200)
        #expect(token.grants.allowsPublish("cam7") && token.grants.allowsPublish("studio") && !token.grants.allowsPublish("x"))
        #expect(token.grants.allowsPlay("anything"))
        #expect(token.grants.record && !token.grants.admin)
        #expect(token.grants.caps == PublishLimits(maxBitrateKbps: 900, maxWidth: 640))
        #expect(throws: AccessTokenError.expired) { try verifier.verify(text, now: now + 7300) }
    }

    @Test func badArgumentsAreUsageErrors() throws {
        let config = try Self.config()
        for arguments in [["make"], ["create"], ["create", "--app"], ["create", "--app", "studio", "--ttl", "soon"],
                          ["create", "--app", "studio", "--max-fps", "0"], ["create", "--app", "studio", "--what"]] {
            #expect(throws: TokenCommand.UsageError.self, "\(arguments)") { try TokenCommand(arguments: arguments) }
        }
        #expect(throws: TokenCommand.UsageError.self) { try TokenCommand(arguments: ["create", "--app", "nope"]).token(config: config) }
        let noSecrets = try ServerConfig.parse(JSONValue.parse(#"{"apps":[{"key":"bare"}]}"#))
        #expect(throws: TokenCommand.UsageError.self) { try TokenCommand(arguments: ["create", "--app", "bare"]).token(config: noSecrets) }
    }

    @Test func durations() {
        #expect(TokenCommand.duration("90") == 90)
        #expect(TokenCommand.duration("30m") == 1800)
        #expect(TokenCommand.duration("1h") == 3600)
        #expect(TokenCommand.duration("7d") == 7 * 86400)
        #expect(TokenCommand.duration("0h") == nil)
        #expect(TokenCommand.duration("1y") == nil)
        #expect(TokenCommand.duration("400d") == nil)
    }

    @Test func secretsAndRequireTokenAreCheckedInTheConfig() throws {
        func problem(_ text: String) -> String? {
            do {
                _ = try ServerConfig.parse(try JSONValue.parse(text))
                return nil
            } catch let error as ConfigError {
                return error.description
            } catch {
                return "\(error)"
            }
        }
        #expect(problem(#"{"apps":[{"key":"a","secrets":["short"]}]}"#)?.contains("apps[0].secrets[0]") == true)
        #expect(problem(#"{"apps":[{"key":"a","requireToken":true}]}"#)?.contains("apps[0].requireToken") == true)
        #expect(problem(#"{"apps":[{"key":"a","requireToken":"yes"}]}"#)?.contains("must be true or false") == true)
        #expect(problem(#"{"apps":[{"key":"a","limits":{"stopWhenExceeded":true}}]}"#) == nil)
        let config = try ServerConfig.parse(JSONValue.parse(#"{"apps":[{"key":"a","secrets":["\#(Self.secret)"],"requireToken":true,"limits":{"stopWhenExceeded":true}}]}"#))
        #expect(config.apps[0].requireToken && config.apps[0].stopWhenExceeded && config.apps[0].secrets == [Self.secret])
    }
}
