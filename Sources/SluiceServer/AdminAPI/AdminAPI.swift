import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceMedia
import SluiceSignaling
import SluiceVocabulary

/// The REST admin API of docs/protocol.md section 2, `/metrics` and the OpenAPI document.
///
/// Handlers run on the signaling service thread, which also owns the media engine's control
/// side and the session manager, so they call both directly. Checks run in this order, and
/// the first that fails answers: admin API disabled (403), token (401), method and path
/// (405, 404), content type (415), body (400), then whether the stream or session exists (404).
public final class AdminAPI {
    public static let streamsPath = "/api/v1/streams"
    public static let sessionsPath = "/api/v1/sessions"
    public static let openAPIPath = "/api/v1/openapi.json"
    public static let metricsPath = "/metrics"

    private let authorization: AdminAuthorization
    private let metricsAuthorization: MetricsAuthorization
    let media: MediaEngine
    private let sessions: SessionManager
    private let serverVersion: String
    private let uptimeSeconds: () -> Int
    private lazy var openAPIDocument: [UInt8] = AdminOpenAPI.document(serverVersion: serverVersion).serializedBytes()

    /// `metricsToken` guards `/metrics`; empty leaves it open.
    public init(adminToken: String, metricsToken: String = "", media: MediaEngine, sessions: SessionManager,
                serverVersion: String, uptimeSeconds: @escaping () -> Int = { 0 }) {
        authorization = AdminAuthorization(token: adminToken)
        metricsAuthorization = MetricsAuthorization(token: metricsToken)
        self.media = media
        self.sessions = sessions
        self.serverVersion = serverVersion
        self.uptimeSeconds = uptimeSeconds
    }

    /// The admin API of `signaling`, which must not have started yet.
    public convenience init(adminToken: String, metricsToken: String = "", media: MediaEngine, signaling: SignalingServer) {
        self.init(adminToken: adminToken, metricsToken: metricsToken, media: media, sessions: signaling.sessions,
                  serverVersion: signaling.config.serverVersion,
                  uptimeSeconds: { [weak signaling] in signaling?.uptimeSeconds ?? 0 })
    }

    /// Adds every route; the router keeps this object alive.
    public func register(on router: HTTPRouter) {
        router.add(nil, Self.streamsPath) { [self] request in guarded(request) { streams($0) } }
        router.add(nil, Self.sessionsPath) { [self] request in guarded(request) { sessionsRoute($0) } }
        router.add(nil, Self.recordingsPath) { [self] request in guarded(request) { recordingsRoute($0) } }
        router.add("GET", Self.openAPIPath) { [self] _ in
            HTTPResponse(status: 200, contentType: "application/json", body: openAPIDocument)
        }
        router.add("GET", Self.metricsPath) { [self] request in
            metricsAuthorization.refusal(for: request) ?? metrics()
        }
    }

    private func guarded(_ request: HTTPRequest, _ handler: (HTTPRequest) -> HTTPResponse) -> HTTPResponse {
        if let refusal = authorization.refusal(for: request) { return refusal }
        return handler(request)
    }

    // MARK: Streams

    func streams(_ request: HTTPRequest) -> HTTPResponse {
        guard let segments = Self.segments(of: request.path, under: Self.streamsPath) else { return .notFound }
        switch segments.count {
        case 0:
            guard Self.isRead(request) else { return Self.methodNotAllowed("GET") }
            let sessionOf = handleSessions()
            let views = media.streamViews().map { view in
                AdminJSON.stream(view, appKey: appKey(of: view), sessionOf: sessionOf, identityOf: identity(of:),
                                 recording: media.recordingPath(stream: view.name))
            }
            return .json(["streams": .array(views)])
        case 1:
            let name = segments[0]
            switch request.method {
            case "GET", "HEAD":
                guard let view = media.streamView(name) else { return Self.streamNotFound(name) }
                return .json(AdminJSON.stream(view, appKey: appKey(of: view), sessionOf: handleSessions(), identityOf: identity(of:),
                                                 recording: media.recordingPath(stream: name)))
            case "DELETE":
                return terminate(name)
            default:
                return Self.methodNotAllowed("DELETE, GET")
            }
        case 2 where segments[1] == "mute" || segments[1] == "unmute":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return setServerMuted(segments[0], request: request, muted: segments[1] == "mute")
        case 2 where segments[1] == "record":
            return recordRoute(segments[0], request: request)
        default:
            return .notFound
        }
    }

    private func setServerMuted(_ name: String, request: HTTPRequest, muted: Bool) -> HTTPResponse {
        let kind: MediaKind
        switch Self.muteKind(request) {
        case .success(let parsed): kind = parsed
        case .failure(let refusal): return refusal.response
        }
        guard let view = media.streamView(name), view.publisher != nil else { return Self.streamNotFound(name) }
        // Asking for the state the stream is already in changes nothing and tells no one.
        let current = kind == .audio ? view.audioMuted : view.videoMuted
        guard current.byServer != muted else { return .json([:]) }
        do {
            try media.setServerMuted(stream: name, kind: kind, muted: muted)
        } catch {
            return Self.mediaFailure(error, stream: name)
        }
        return .json([:])
    }

    private func terminate(_ name: String) -> HTTPResponse {
        do {
            try media.terminate(stream: name)
        } catch {
            return Self.mediaFailure(error, stream: name)
        }
        return .json([:])
    }

    private func appKey(of view: StreamView) -> String? {
        view.publisherSession.flatMap { sessions.session(withID: $0)?.appKey }
    }

    func appKey(ofStream name: String) -> String? {
        media.streamView(name).flatMap(appKey(of:))
    }

    /// The token identity of a connected session, if it has one.
    private func identity(of session: SessionID) -> String? {
        sessions.session(withID: session)?.identity
    }

    /// Which session owns each handle, from the sessions' own records.
    private func handleSessions() -> [StreamHandle: SessionID] {
        var owners: [StreamHandle: SessionID] = [:]
        for session in sessions.connectedSessions {
            guard let id = session.sessionID else { continue }
            for handle in session.handleRoles.keys { owners[handle] = id }
        }
        return owners
    }

    // MARK: Sessions

    func sessionsRoute(_ request: HTTPRequest) -> HTTPResponse {
        guard let segments = Self.segments(of: request.path, under: Self.sessionsPath) else { return .notFound }
        switch segments.count {
        case 0:
            guard Self.isRead(request) else { return Self.methodNotAllowed("GET") }
            let list: [JSONValue] = sessions.connectedSessions.compactMap { session in
                guard let id = session.sessionID else { return nil }
                return AdminJSON.session(session, id: id) { handle in try? media.stats(handle: handle).stream }
            }
            return .json(["sessions": .array(list)])
        case 1:
            guard request.method == "DELETE" else { return Self.methodNotAllowed("DELETE") }
            guard sessions.kick(segments[0]) else {
                return .error(status: 404, message: "Session not found: \(segments[0])", reason: "SESSION_NOT_FOUND")
            }
            return .json([:])
        default:
            return .notFound
        }
    }

    // MARK: Metrics

    func metrics() -> HTTPResponse {
        let sessions = self.sessions
        let input = AdminMetrics.Input(
            version: serverVersion, uptimeSeconds: uptimeSeconds(), sessions: sessions.connectedSessionCount,
            streams: media.streamViews(), appOf: { sessions.session(withID: $0)?.appKey },
            workers: AdminMetrics.workerCounters(media.workers),
            forwardDelays: AdminMetrics.forwardDelays(media.workers), tcp: AdminTCPMetrics.read(media.workers),
            relay: media.relayCounters,
            links: AdminLinkMetrics.Input(origin: media.linkViews, edge: media.edgeLinks.count,
                                          packets: media.linkPackets,
                                          layerPackets: media.edgeLinkLayerPackets),
            dataChannels: media.allDataChannelStats(), callLogDropped: sessions.callLog?.droppedWrites,
            service: AdminServiceMetrics(
                draining: sessions.isDraining, calls: sessions.activeCallCount, layerSwitches: sessions.layerSwitches,
                hookOutcomes: sessions.hooks.outcomes.snapshot, recordings: media.recordingFigures.running,
                recordingFailures: media.recordingFigures.failed))
        let text = PrometheusText.render(AdminMetrics.families(input))
        return HTTPResponse(status: 200, contentType: PrometheusText.contentType, body: Array(text.utf8))
    }

    // MARK: Helpers

    /// The path's segments after `prefix`, or nil when it is not under it. A trailing
    /// slash is ignored.
    static func segments(of path: String, under prefix: String) -> [String]? {
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard rest.isEmpty || rest.first == "/" else { return nil }
        return rest.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    static func isRead(_ request: HTTPRequest) -> Bool {
        request.method == "GET" || request.method == "HEAD"
    }

    static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        .error(status: 405, message: "Method not allowed", reason: "METHOD_NOT_ALLOWED", headers: [("allow", allowed)])
    }

    static func streamNotFound(_ name: String) -> HTTPResponse {
        .error(status: 404, message: "Stream not found: \(name)", reason: "STREAM_NOT_FOUND")
    }

    static func mediaFailure(_ error: MediaError, stream: String) -> HTTPResponse {
        switch error {
        case .streamNotFound, .unknownHandle:
            return streamNotFound(stream)
        default:
            return .error(status: 500, message: "The media engine refused: \(error)", reason: "INTERNAL_ERROR")
        }
    }

    struct Refusal: Error {
        var response: HTTPResponse
    }

    /// The `kind` of a mute or unmute body: `{"kind":"audio"}` or `{"kind":"video"}`.
    static func muteKind(_ request: HTTPRequest) -> Result<MediaKind, Refusal> {
        if let type = request.header("content-type") {
            let mediaType = type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
            guard mediaType == "application/json" else {
                return .failure(Refusal(response: .error(
                    status: 415, message: "Content-Type must be application/json, not '\(type)'",
                    reason: "UNSUPPORTED_MEDIA_TYPE", headers: [("accept-post", "application/json")])))
            }
        }
        func bad(_ message: String) -> Result<MediaKind, Refusal> {
            .failure(Refusal(response: .error(status: 400, message: message, reason: "BAD_REQUEST")))
        }
        guard !request.body.isEmpty else { return bad("The body must be a JSON object: {\"kind\": \"audio\" or \"video\"}") }
        let body: JSONValue
        do {
            body = try JSONValue.parse(request.body)
        } catch {
            return bad("The body is not valid JSON: \(error)")
        }
        guard case .object(let object) = body else { return bad("The body must be a JSON object, not \(body.kindDescription)") }
        guard let kindValue = object["kind"] else { return bad("'kind' is required: \"audio\" or \"video\"") }
        guard let text = kindValue.stringValue, let kind = MediaKind(rawValue: text) else {
            return bad("'kind' must be \"audio\" or \"video\"")
        }
        return .success(kind)
    }
}
