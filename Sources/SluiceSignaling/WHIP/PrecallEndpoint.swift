import SluiceJSON
import SluiceWire

/// `POST /precall`, `GET` and `DELETE /precall/{id}` (docs/protocol.md section 2 and section 6,
/// "Pre-call test"): the pre-call test for a plain HTTP client, as WHIP is a publish. Checks
/// run in this order: path (404) and method (405), bearer token (401), `Content-Type` (415),
/// body and `?seconds` (400), then the session's own `connect` and `precall`.
public final class PrecallEndpoint {
    static let pathPrefix = "/precall"
    /// How long a finished test's state stays readable.
    static let keepMicros: UInt64 = 60_000_000

    private let sessions: SessionManager
    private let log: Log
    private let runSoon: (@escaping () -> Void) -> Void
    private var resources: [String: PrecallResource] = [:]

    init(sessions: SessionManager, log: Log, runSoon: @escaping (@escaping () -> Void) -> Void) {
        self.sessions = sessions
        self.log = log
        self.runSoon = runSoon
    }

    public convenience init(signaling: SignalingServer) {
        self.init(sessions: signaling.sessions, log: signaling.log,
                  runSoon: { [weak signaling] task in signaling?.runSoon(task) })
    }

    public func register(on router: HTTPRouter) {
        router.addDeferred(nil, Self.pathPrefix) { [self] request, responder in
            handle(request, responder: responder)
        }
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        prune(now: MonotonicClock.nowMicros())
        let rest = request.path.dropFirst(Self.pathPrefix.count)
        let response: HTTPResponse?
        if rest.isEmpty || rest == "/" {
            switch request.method {
            case "POST": response = start(request, responder: responder)
            case "OPTIONS": response = HTTPResponse(status: 204, headers: [
                ("access-control-allow-methods", "POST, OPTIONS"),
                ("access-control-allow-headers", "Authorization, Content-Type")])
            default: response = WHIPEndpoint.methodNotAllowed("POST, OPTIONS")
            }
        } else if rest.hasPrefix("/"), let resource = resources[String(rest.dropFirst())] {
            switch request.method {
            case "GET":
                response = .json(resource.json)
            case "DELETE":
                finish(resource)
                response = HTTPResponse(status: 200)
            default:
                response = WHIPEndpoint.methodNotAllowed("GET, DELETE")
            }
        } else {
            response = .error(status: 404, message: "No such precall", reason: "NOT_FOUND")
        }
        if let response { responder.respond(WHIPEndpoint.withCORS(response)) }
    }

    private func start(_ request: HTTPRequest, responder: HTTPResponder) -> HTTPResponse? {
        let credential: WHIPAuthorization.Credential
        var seconds: Int?
        do throws(WHIPError) {
            credential = try WHIPAuthorization.credential(of: request,
                                                          isAppKey: { sessions.config.app(withKey: $0) != nil }) {
                appKey, token throws(AccessRefusal) in
                try sessions.checkAccess(appKey: appKey, token: token)
            }.get()
            guard request.mediaType == WHIPEndpoint.sdpType else {
                throw WHIPError(status: 415, message: "Content-Type must be \(WHIPEndpoint.sdpType), not '\(request.header("content-type") ?? "none")'",
                                reason: "UNSUPPORTED_MEDIA_TYPE", headers: [("accept-post", WHIPEndpoint.sdpType)])
            }
            guard !request.body.isEmpty else { throw .badRequest("The body must be an SDP offer") }
            for item in request.queryItems {
                guard item.name == "seconds" else { throw .badRequest("Unknown query parameter '\(item.name)'") }
                guard let value = Int(item.value), (1...PrecallPolicy.maxSeconds).contains(value) else {
                    throw .badRequest("'seconds' must be a whole number from 1 to \(PrecallPolicy.maxSeconds)")
                }
                seconds = value
            }
        } catch {
            log.info("precall: refused with \(error.status): \(error.message)")
            return error.response
        }
        var id = SessionManager.randomSessionID()
        while resources[id] != nil { id = SessionManager.randomSessionID() }
        let resource = PrecallResource(id: id)
        resource.onAnswer = { [unowned self, unowned resource] result in
            switch result {
            case .success(let sdp):
                log.info("precall: resource \(id) has handle \(resource.handle ?? "?")")
                return responder.respond(WHIPEndpoint.withCORS(HTTPResponse(
                    status: 201, contentType: WHIPEndpoint.sdpType,
                    headers: [("location", "\(Self.pathPrefix)/\(id)")], body: Array(sdp.utf8))))
            case .failure(let error):
                return responder.respond(WHIPEndpoint.withCORS(error.response))
            }
        }
        resource.onEnd = { [unowned self] resource in runSoon { [self] in finish(resource) } }
        responder.onAbandon = { [weak resource] in resource?.end() }
        let session = sessions.open(output: resource)
        resource.session = session
        resources[id] = resource
        let connect: JSONObject = credential.token.map { ["token": .string($0)] } ?? ["appKey": .string(credential.appKey)]
        sessions.receive(Self.request(WHIPResource.connectRequestID, "connect", connect), from: session)
        var params: JSONObject = ["sdp": .string(String(decoding: request.body, as: UTF8.self))]
        if let seconds { params["seconds"] = JSONValue(seconds) }
        sessions.receive(Self.request(WHIPResource.startRequestID, "precall", params), from: session)
        return nil
    }

    private static func request(_ id: Int, _ method: String, _ params: JSONObject) -> String {
        JSONValue.object(["jsonrpc": "2.0", "id": JSONValue(id), "method": .string(method),
                          "params": .object(params)]).serialized()
    }

    /// Closes the resource's session (its test ends with it); a resource that never got a
    /// handle is forgotten at once, one with a handle is kept readable for a minute.
    private func finish(_ resource: PrecallResource) {
        guard resources[resource.id] === resource else { return }
        resource.onEnd = nil
        if resource.endedAt == nil { resource.endedAt = MonotonicClock.nowMicros() }
        if let session = resource.session {
            resource.session = nil
            sessions.closed(session)
        }
        if resource.handle == nil { resources[resource.id] = nil }
    }

    private func prune(now: UInt64) {
        resources = resources.filter { _, resource in
            guard let ended = resource.endedAt else { return true }
            return now < ended + Self.keepMicros
        }
    }

    /// Tests still running or readable.
    public var resourceCount: Int { resources.count }
}
