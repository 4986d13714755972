import SluiceJSON
import SluiceWire
import SluiceLog

/// `POST /precall`, `GET` and `DELETE /precall/{id}` (docs/protocol.md section 2 and section 6,
/// "Pre-call test"): the pre-call test for a plain HTTP client, as WHIP is a publish. Checks
/// run in this order: path (404) and method (405), bearer token (401), `Content-Type` (415),
/// body and `?seconds` (400), then the session's own `connect` and `precall`.
public final class PrecallEndpoint {
    static let pathPrefix = "/precall"
    /// How long a finished test's state stays readable.
    static let keepMicros: UInt64 = 60_000_000

    private let bridge: HTTPSessionBridge
    private var log: Log { bridge.log }
    private var resources: [String: PrecallResource] = [:]

    init(bridge: HTTPSessionBridge) {
        self.bridge = bridge
    }

    public convenience init(signaling: SignalingServer) {
        self.init(bridge: HTTPSessionBridge(signaling: signaling))
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
            credential = try bridge.authorize(request)
            try HTTPSessionBridge.requireOffer(request)
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
        let id = HTTPSessionBridge.newID { resources[$0] != nil }
        let resource = PrecallResource(id: id)
        resource.onEnd = { [unowned self] resource in bridge.runSoon { [self] in finish(resource) } }
        resources[id] = resource
        var params: JSONObject = ["sdp": .string(String(decoding: request.body, as: UTF8.self))]
        if let seconds { params["seconds"] = JSONValue(seconds) }
        bridge.start(resource, credential: credential, method: "precall", params: params, responder: responder,
                     label: "precall", location: "\(Self.pathPrefix)/\(id)", iceLinks: false)
        return nil
    }

    /// Closes the resource's session (its test ends with it); a resource that never got a
    /// handle is forgotten at once, one with a handle is kept readable for a minute.
    private func finish(_ resource: PrecallResource) {
        guard resources[resource.id] === resource else { return }
        resource.onEnd = nil
        if resource.endedAt == nil { resource.endedAt = MonotonicClock.nowMicros() }
        if let session = resource.session {
            resource.session = nil
            bridge.sessions.closed(session)
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
