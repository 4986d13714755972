import SluiceJSON
import SluiceJSONParser
import Testing
@testable import SluiceServer

/// A config from JSON text, as `ServerConfig.load` reads a file.
func parseConfig(_ text: String) throws -> ServerConfig {
    try ServerConfig.parse(try JSONValue.parse(text))
}

/// `text` must be refused with an error that names `key` and says `problem`.
func expectConfigError(_ text: String, key: String, problem: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
    do {
        _ = try parseConfig(text)
        Issue.record("accepted \(text)", sourceLocation: sourceLocation)
    } catch let error as ConfigError {
        #expect(error.key == key, sourceLocation: sourceLocation)
        #expect(error.problem.contains(problem), "\(error.problem)", sourceLocation: sourceLocation)
    }
}
