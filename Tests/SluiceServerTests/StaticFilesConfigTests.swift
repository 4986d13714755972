import SluiceJSON
import SluiceJSONParser
import Testing
@testable import SluiceServer

struct StaticFilesConfigTests {
    @Test func webRootDefaultsToWeb() throws {
        #expect(try ServerConfig.parse(try JSONValue.parse("{}")).webRoot == "web")
        #expect(try ServerConfig.parse(try JSONValue.parse(#"{"server": {"webRoot": "/srv/sluice"}}"#)).webRoot == "/srv/sluice")
    }

    @Test(arguments: [
        (#"{"server": {"webRoot": 5}}"#, "must be a string"),
        (#"{"server": {"webRoot": ["web"]}}"#, "must be a string"),
        (#"{"server": {"webRoot": ""}}"#, "non-empty"),
    ])
    func badWebRootNamesTheKey(text: String, problem: String) throws {
        do {
            _ = try ServerConfig.parse(try JSONValue.parse(text))
            Issue.record("accepted \(text)")
        } catch let error as ConfigError {
            #expect(error.key == "server.webRoot")
            #expect(error.problem.contains(problem), "\(error.problem)")
        }
    }
}
