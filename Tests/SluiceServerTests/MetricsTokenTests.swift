import SluiceJSON
import SluiceJSONParser
import SluiceSignaling
import Testing
@testable import SluiceServer

/// `metrics.token`: absent or empty leaves `/metrics` open; set, it needs `Bearer <token>`.
@Suite(.serialized) struct MetricsTokenTests {
    static func metrics(_ fixture: AdminFixture, metricsToken: String, authorization: String?) -> HTTPResponse {
        let router = HTTPRouter()
        AdminAPI(adminToken: AdminFixture.token, metricsToken: metricsToken, media: fixture.server.media,
                 sessions: fixture.sessions, serverVersion: "9").register(on: router)
        var headers: [String: String] = [:]
        if let authorization { headers["authorization"] = authorization }
        return router.route(HTTPRequest(method: "GET", path: "/metrics", headers: headers))
    }

    @Test func withoutATokenMetricsAreOpen() throws {
        let fixture = try AdminFixture()
        #expect(Self.metrics(fixture, metricsToken: "", authorization: nil).status == 200)
        // The server's own route, wired from the config (no metrics section).
        #expect(fixture.request("GET", "/metrics", token: nil).status == 200)
    }

    @Test func aTokenIsRequiredWhenSet() throws {
        let fixture = try AdminFixture()
        let missing = Self.metrics(fixture, metricsToken: "scrape-me", authorization: nil)
        #expect(missing.status == 401)
        #expect(missing.headers.first { $0.name == "www-authenticate" }?.value == "Bearer realm=\"sluice-metrics\"")
        #expect(try JSONValue.parse(missing.body)["error"]?["reason"] == "UNAUTHORIZED")

        let wrong = Self.metrics(fixture, metricsToken: "scrape-me", authorization: "Bearer scrape-you")
        #expect(wrong.status == 401)
        #expect(wrong.headers.first { $0.name == "www-authenticate" }?.value.contains("error=\"invalid_token\"") == true)
        // The admin token is not the metrics token.
        #expect(Self.metrics(fixture, metricsToken: "scrape-me", authorization: "Bearer \(AdminFixture.token)").status == 401)
        #expect(Self.metrics(fixture, metricsToken: "scrape-me", authorization: "Basic scrape-me").status == 401)

        let good = Self.metrics(fixture, metricsToken: "scrape-me", authorization: "bearer scrape-me")
        #expect(good.status == 200)
        #expect(good.contentType == PrometheusText.contentType)
        #expect(String(decoding: good.body, as: UTF8.self).contains("\nsluice_streams 0\n"))
    }

    @Test func theConfigKeyIsRead() throws {
        #expect(try ServerConfig.parse(JSONValue.parse(#"{"metrics": {"token": "t"}}"#)).metricsToken == "t")
        #expect(try ServerConfig.parse(JSONValue.parse("{}")).metricsToken == "")
        #expect(throws: ConfigError.self) { try ServerConfig.parse(JSONValue.parse(#"{"metrics": {"token": 5}}"#)) }
        #expect(throws: ConfigError.self) { try ServerConfig.parse(JSONValue.parse(#"{"metrics": {"tokens": "t"}}"#)) }
    }
}
