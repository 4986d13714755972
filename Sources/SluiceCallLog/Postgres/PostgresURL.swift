import CLibPQ
import Foundation
import SluiceCalls

/// `calls.database` as a PostgreSQL URL: `postgresql://user:password@host:port/db?options`
/// (or `postgres://`), as libpq reads it. The password is libpq's to use and nobody's to see:
/// `description` leaves it out, and `redact` takes it out of any text (libpq's errors, ours).
public struct PostgresURL: Sendable, CustomStringConvertible {
    /// The text as configured, handed to libpq only.
    let text: String
    public let user: String?
    public let host: String?
    public let port: String?
    public let database: String?
    /// The password as written in the URL (percent-encoded or not) and as libpq decodes it,
    /// each replaced wherever it appears in a message.
    private let secrets: [String]

    public static func isPostgres(_ setting: String) -> Bool {
        let lower = setting.lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://")
    }

    /// Refuses what libpq cannot parse, with libpq's reason (redacted).
    public init(_ text: String) throws(CallLogError) {
        self.text = text
        var secrets = Self.rawPasswords(in: text).flatMap { [$0, $0.removingPercentEncoding ?? $0] }
        var problem: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &problem) else {
            let reason = problem.map { String(cString: $0) } ?? "out of memory"
            PQfreemem(problem)
            throw CallLogError("not a PostgreSQL URL libpq can read: "
                               + Self.redact(reason.trimmingCharacters(in: .whitespacesAndNewlines), secrets: secrets))
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        if let password = values["password"], !password.isEmpty { secrets.append(password) }
        // Longest first, so a password that contains another secret is replaced whole.
        self.secrets = Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
        user = values["user"]
        host = values["host"] ?? values["hostaddr"]
        port = values["port"]
        database = values["dbname"]
    }

    /// `postgresql://user@host:port/db`: enough to know which database, never the password.
    public var description: String {
        var text = "postgresql://"
        if let user { text += "\(user)@" }
        text += host ?? "localhost"
        if let port { text += ":\(port)" }
        if let database { text += "/\(database)" }
        return text
    }

    /// `message` with every form of the password replaced by `***`.
    public func redact(_ message: String) -> String {
        Self.redact(message, secrets: secrets)
    }

    private static func redact(_ message: String, secrets: [String]) -> String {
        secrets.reduce(message) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// The password as written: between `user:` and `@` in the authority, and any
    /// `password=` in the query.
    private static func rawPasswords(in text: String) -> [String] {
        guard let scheme = text.range(of: "://") else { return [] }
        let rest = text[scheme.upperBound...]
        var found: [String] = []
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let colon = userInfo.firstIndex(of: ":") { found.append(String(userInfo[userInfo.index(after: colon)...])) }
        }
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") where pair.hasPrefix("password=") {
                found.append(String(pair.dropFirst("password=".count)))
            }
        }
        return found.filter { !$0.isEmpty }
    }
}
