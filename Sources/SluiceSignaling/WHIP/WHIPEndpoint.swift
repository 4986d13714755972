import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// WHIP (RFC 9725) and WHEP: `POST /whip/{stream}` publishes and `POST /whep/{stream}`
/// plays, each answered with 201, the SDP answer and the resource's Location; `DELETE` on
/// the Location ends it; `PATCH` takes trickle candidates (and ignores them: the server is
/// ICE-lite, its answer holds every candidate); `OPTIONS` answers CORS preflights. Each
/// resource is a session of the session manager (`WHIPResource`). Choices the contract
/// leaves open are in docs/protocol.md section 6.
///
/// Checks run in this order, and the first that fails answers: path (404) and method (405),
/// bearer token (401), stream name (400), `Content-Type` (415), body and query (400), then
/// the session's own `connect` and `publish`/`play` (hooks, limits, SDP).
public final class WHIPEndpoint {
    static let sdpType = HTTPSessionBridge.sdpType
    static let trickleType = "application/trickle-ice-sdpfrag"

    private let bridge: HTTPSessionBridge
    private var log: Log { bridge.log }
    private var resources: [String: WHIPResource] = [:]

    init(bridge: HTTPSessionBridge) {
        self.bridge = bridge
    }

    convenience init(sessions: SessionManager, log: Log, runSoon: @escaping (@escaping () -> Void) -> Void) {
        self.init(bridge: HTTPSessionBridge(sessions: sessions, log: log, runSoon: runSoon))
    }

    /// The endpoints of `signaling`, which must not have started yet.
    public convenience init(signaling: SignalingServer) {
        self.init(bridge: HTTPSessionBridge(signaling: signaling))
    }

    /// Adds `/whip` and `/whep`; the router keeps this object alive.
    public func register(on router: HTTPRouter) {
        for kind in [WHIPKind.whip, .whep] {
            router.addDeferred(nil, kind.pathPrefix) { [self] request, responder in
                handle(request, responder: responder)
            }
        }
    }

    /// Live resources (answered, or waiting for hooks).
    public var resourceCount: Int { resources.count }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let response: HTTPResponse?
        if let path = WHIPPath(request.path) {
            switch (request.method, path.resourceID) {
            case ("OPTIONS", _):
                response = preflight(path)
            case ("POST", nil):
                response = start(request, path: path, responder: responder)
            case ("DELETE", let id?):
                response = delete(request, path: path, id: id)
            case ("PATCH", let id?):
                response = patch(request, path: path, id: id)
            case (_, nil):
                response = Self.methodNotAllowed("POST, OPTIONS")
            case (_, _?):
                response = Self.methodNotAllowed("DELETE, PATCH, OPTIONS")
            }
        } else {
            response = .notFound
        }
        if let response { responder.respond(Self.withCORS(response)) }
    }

    // MARK: POST

    /// nil when the answer comes later, from the resource.
    private func start(_ request: HTTPRequest, path: WHIPPath, responder: HTTPResponder) -> HTTPResponse? {
        let constraints: JSONValue?
        let credential: WHIPAuthorization.Credential
        do throws(WHIPError) {
            credential = try bridge.authorize(request)
            guard RPCParams.isValidStreamName(path.stream) else {
                throw .badRequest("Stream names are 1 to 128 characters from [A-Za-z0-9._~-]")
            }
            try HTTPSessionBridge.requireOffer(request)
            constraints = path.kind == .whep ? try WHEPQuery.constraints(request.queryItems) : nil
        } catch {
            log.info("\(path.kind.rawValue) \(path.stream): refused with \(error.status): \(error.message)", [.stream(path.stream)])
            return error.response
        }

        let id = HTTPSessionBridge.newID { resources[$0] != nil }
        var resourcePath = path
        resourcePath.resourceID = id
        let resource = WHIPResource(id: id, path: resourcePath, appKey: credential.appKey)
        resource.onEnd = { [unowned self] resource in
            bridge.runSoon { [self] in finish(resource) }
        }
        resources[id] = resource
        var params: JSONObject = ["stream": .string(path.stream),
                                  "sdp": .string(String(decoding: request.body, as: UTF8.self))]
        if let constraints { params["constraints"] = constraints }
        bridge.start(resource, credential: credential, method: path.kind == .whip ? "publish" : "play", params: params,
                     responder: responder, label: "\(path.kind.rawValue) \(path.stream)",
                     location: resourcePath.location, iceLinks: true)
        return nil
    }

    /// Forgets a resource and closes its session: its handle ends as at a disconnect
    /// ("Stopped by session disconnect"; a publisher's players get "Stopped by publisher stop").
    private func finish(_ resource: WHIPResource) {
        guard resources[resource.id] === resource else { return }
        resources[resource.id] = nil
        resource.onEnd = nil
        resource.end()
        if let session = resource.session { bridge.sessions.closed(session) }
        // A start that failed was logged with its error already.
        guard resource.handle != nil else { return }
        log.info("\(resource.path.kind.rawValue) \(resource.path.stream): resource \(resource.id) ended",
                 [.stream(resource.path.stream)])
    }

    // MARK: DELETE, PATCH, OPTIONS

    private func delete(_ request: HTTPRequest, path: WHIPPath, id: String) -> HTTPResponse {
        do throws(WHIPError) {
            let resource = try lookUp(request, path: path, id: id)
            finish(resource)
            return HTTPResponse(status: 200)
        } catch {
            return error.response
        }
    }

    private func patch(_ request: HTTPRequest, path: WHIPPath, id: String) -> HTTPResponse {
        do throws(WHIPError) {
            _ = try lookUp(request, path: path, id: id)
            guard request.mediaType == Self.trickleType else {
                throw WHIPError(status: 415, message: "Content-Type must be \(Self.trickleType), not '\(request.header("content-type") ?? "none")'",
                                reason: "UNSUPPORTED_MEDIA_TYPE", headers: [("accept-patch", Self.trickleType)])
            }
            return HTTPResponse(status: 204)
        } catch {
            return error.response
        }
    }

    /// The live resource at `path` that the token's app owns; another app's is not found either.
    private func lookUp(_ request: HTTPRequest, path: WHIPPath, id: String) throws(WHIPError) -> WHIPResource {
        let appKey = try bridge.authorize(request).appKey
        guard let resource = resources[id], resource.path == path, resource.appKey == appKey else {
            throw WHIPError(status: 404, message: "No such \(path.kind.rawValue.uppercased()) resource", reason: "NOT_FOUND")
        }
        return resource
    }

    private func preflight(_ path: WHIPPath) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [
            ("access-control-allow-headers", "Authorization, Content-Type, If-Match"),
            ("access-control-max-age", "86400"),
        ]
        if path.resourceID == nil {
            headers.append(("access-control-allow-methods", "POST, OPTIONS"))
            headers.append(("accept-post", Self.sdpType))
        } else {
            headers.append(("access-control-allow-methods", "DELETE, PATCH, OPTIONS"))
            headers.append(("accept-patch", Self.trickleType))
        }
        return HTTPResponse(status: 204, headers: headers)
    }

    /// Every answer may be read by a page of any origin: the bearer token, not the origin,
    /// is what authorizes.
    static func withCORS(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.append(("access-control-allow-origin", "*"))
        response.headers.append(("access-control-expose-headers", "Location, Link, ETag"))
        return response
    }

    static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        .error(status: 405, message: "Method not allowed", reason: "METHOD_NOT_ALLOWED", headers: [("allow", allowed)])
    }
}
