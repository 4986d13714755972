import SluiceJSON

/// An HTTP request, complete with its body, as a route handler sees it.
public struct HTTPRequest: Sendable {
    /// Upper case: GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD.
    public var method: String
    /// The decoded path, without the query ("/api/v1/streams/cam1").
    public var path: String
    /// The query without its "?" ("quality=low&width=640"), or "".
    public var query: String
    /// Lower-case names; only the headers `HTTPRequest.collectedHeaders` lists are kept.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The token of an `Authorization: Bearer <token>` header, or nil.
    public var bearerToken: String? { HTTPRequest.bearerToken(header("authorization")) }

    /// The token of `Bearer <token>`; the scheme is case-insensitive (RFC 7235).
    public static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let trimmed = header.drop { $0 == " " || $0 == "\t" }
        guard trimmed.count > 7, trimmed.prefix(6).lowercased() == "bearer",
              let separator = trimmed.dropFirst(6).first, separator == " " || separator == "\t" else { return nil }
        let token = trimmed.dropFirst(7).drop { $0 == " " || $0 == "\t" }
        let end = token.lastIndex { $0 != " " && $0 != "\t" }
        guard let end else { return nil }
        return String(token[...end])
    }

    /// The media type of `Content-Type`, lower case and without parameters, or nil.
    public var mediaType: String? {
        guard let type = header("content-type") else { return nil }
        return type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
    }

    /// The query's name=value pairs in order; a name without "=" has an empty value.
    public var queryItems: [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// The headers the server copies out of libwebsockets for handlers.
    public static let collectedHeaders = [
        "host", "origin", "authorization", "content-type", "content-length", "accept",
        "user-agent", "if-match", "if-none-match", "x-forwarded-for", "range",
    ]
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Extra headers; content-type and content-length are written from `contentType` and `body`.
    public var headers: [(name: String, value: String)]
    public var contentType: String?
    public var body: [UInt8]

    public init(status: Int, contentType: String? = nil, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    public static func json(_ value: JSONValue, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", headers: headers, body: value.serializedBytes())
    }

    /// The error shape of docs/protocol.md section 2: `{"error":{"code","message","reason"}}`.
    public static func error(status: Int, message: String, reason: String,
                             headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(["error": ["code": JSONValue(status), "message": .string(message), "reason": .string(reason)]],
             status: status, headers: headers)
    }

    public static let notFound = HTTPResponse.error(status: 404, message: "Not found", reason: "NOT_FOUND")
}

/// The route table: (method, path prefix) to a handler. Handlers run on the service thread.
/// A plain handler answers at once; a deferred one gets an `HTTPResponder` it may answer
/// later (WHIP, whose hooks are asynchronous). A prefix matches the path itself and anything under it
/// ("/api/v1/streams" matches "/api/v1/streams/cam1", not "/api/v1/streamsX"); the longest
/// matching prefix wins. A path with routes but none for the method gets 405.
public final class HTTPRouter {
    public typealias Handler = (HTTPRequest) -> HTTPResponse
    public typealias DeferredHandler = (HTTPRequest, HTTPResponder) -> Void

    private struct Route {
        var method: String?
        var prefix: String
        var handler: DeferredHandler
    }

    private var routes: [Route] = []

    public init() {}

    /// `method` nil matches every method.
    public func add(_ method: String?, _ pathPrefix: String, handler: @escaping Handler) {
        addDeferred(method, pathPrefix) { request, responder in responder.respond(handler(request)) }
    }

    /// A route whose handler answers through the responder, now or later.
    public func addDeferred(_ method: String?, _ pathPrefix: String, handler: @escaping DeferredHandler) {
        routes.append(Route(method: method?.uppercased(), prefix: pathPrefix, handler: handler))
    }

    public func hasRoute(_ method: String?, _ pathPrefix: String) -> Bool {
        routes.contains { $0.method == method?.uppercased() && $0.prefix == pathPrefix }
    }

    public func route(_ request: HTTPRequest, responder: HTTPResponder) {
        let matching = routes.filter { HTTPRouter.prefix($0.prefix, matches: request.path) }
        guard !matching.isEmpty else {
            responder.respond(.notFound)
            return
        }
        let forMethod = matching.filter { $0.method == nil || $0.method == request.method
            || ($0.method == "GET" && request.method == "HEAD") }
        guard let best = forMethod.max(by: { $0.prefix.count < $1.prefix.count }) else {
            let allowed = Set(matching.compactMap(\.method)).sorted().joined(separator: ", ")
            responder.respond(.error(status: 405, message: "Method not allowed", reason: "METHOD_NOT_ALLOWED",
                                     headers: [("allow", allowed)]))
            return
        }
        best.handler(request, responder)
    }

    /// The answer a route gives at once; a deferred route that has not answered by its
    /// return gets 500 here (tests and callers that cannot wait use this).
    public func route(_ request: HTTPRequest) -> HTTPResponse {
        let responder = HTTPResponder()
        route(request, responder: responder)
        return responder.immediate ?? .error(status: 500, message: "No answer", reason: "INTERNAL_ERROR")
    }

    static func prefix(_ prefix: String, matches path: String) -> Bool {
        guard path.hasPrefix(prefix) else { return false }
        if path.count == prefix.count || prefix.hasSuffix("/") { return true }
        return path.dropFirst(prefix.count).first == "/"
    }
}
