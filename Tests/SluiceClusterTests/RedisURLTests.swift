import SluiceCluster
import XCTest

final class RedisURLTests: XCTestCase {
    func testParsesHostPortAndDatabase() throws {
        XCTAssertEqual(try RedisURL(parsing: "redis://127.0.0.1:6380/2"), RedisURL(host: "127.0.0.1", port: 6380, database: 2))
        XCTAssertEqual(try RedisURL(parsing: "redis://localhost"), RedisURL(host: "localhost", port: 6379, database: 0))
        XCTAssertEqual(try RedisURL(parsing: "redis://10.0.0.5/"), RedisURL(host: "10.0.0.5"))
        XCTAssertEqual(try RedisURL(parsing: "redis://[::1]:7000/1"), RedisURL(host: "::1", port: 7000, database: 1))
        XCTAssertEqual(RedisURL(host: "::1", port: 7000, database: 1).description, "redis://[::1]:7000/1")
    }

    func testRefusesWhatItCannotHonour() {
        let cases: [(String, String)] = [
            ("http://127.0.0.1:6379", "must be a redis:// URL, not a http: one"),
            ("rediss://127.0.0.1:6379", "must be a redis:// URL, not a rediss: one"),
            ("127.0.0.1:6379", "must be a redis://host:port/db URL"),
            ("redis://", "has no host"),
            ("redis://:6379", "has no host"),
            ("redis://host:0", "has port \"0\""),
            ("redis://host:70000", "has port \"70000\""),
            ("redis://host:abc", "has port \"abc\""),
            ("redis://host:6379/x", "has database \"x\""),
            ("redis://host:6379/-1", "has database \"-1\""),
            ("redis://user@host:6379", "has user info without a password"),
            ("redis://user:@host:6379", "has an empty password"),
            ("redis://u:p%zz@host:6379", "has a bad %-escape in its password"),
            ("redis://u:p w@host:6379", "in its password"),
            ("rediss://u:secret@host:6379", "hiredis 0.14 has no TLS"),
            ("redis://host:6379/0?timeout=1", "has query options"),
            ("redis://[::1:6379", "without its closing ]"),
            ("redis://x::1]:6380/2", "has host \"x::1]\""),
            ("redis://[host]:6380", "has host \"host\""),
            ("redis://a b:6379", "has host \"a b\""),
            ("redis://h\u{0}:6379", "has host"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try RedisURL(parsing: text), text) { error in
                let problem = (error as? RedisURL.ParseError)?.problem ?? "\(error)"
                XCTAssertTrue(problem.contains(expected), "\(text): \(problem)")
                XCTAssertFalse(problem.contains("secret") || problem.contains("p w"), "the password is never echoed: \(problem)")
            }
        }
    }

    func testTakesAUserAndPasswordAndNeverPrintsThePassword() throws {
        let acl = try RedisURL(parsing: "redis://sluice:s3cr%40t%3A%2F@10.0.0.9:6380/1")
        XCTAssertEqual(acl, RedisURL(host: "10.0.0.9", port: 6380, database: 1, user: "sluice", password: "s3cr@t:/"))
        XCTAssertEqual(acl.description, "redis://sluice:***@10.0.0.9:6380/1")
        let plain = try RedisURL(parsing: "redis://:hunter2@127.0.0.1")
        XCTAssertNil(plain.user)
        XCTAssertEqual(plain.password, "hunter2")
        XCTAssertEqual(plain.description, "redis://:***@127.0.0.1:6379/0")
        XCTAssertFalse("\(plain)".contains("hunter2"))
    }

    /// A user that decodes to `:`, `@`, `%` or a control byte prints encoded, so the printed
    /// URL parses back to the same user (found by FuzzClusterRecords).
    func testAUserWithURLCharactersPrintsBackEncoded() throws {
        let url = try RedisURL(parsing: "redis://a%3Ab%40c%25d%10\u{FFFD}@e:pw@127.0.0.1:7000/2")
        XCTAssertEqual(url.user, "a:b@c%d\u{10}\u{FFFD}@e")
        XCTAssertEqual(url.description, "redis://a%3Ab%40c%25d%10\u{FFFD}%40e:***@127.0.0.1:7000/2")
        var shown = url
        shown.password = "***"
        XCTAssertEqual(try RedisURL(parsing: url.description), shown)
    }
}
