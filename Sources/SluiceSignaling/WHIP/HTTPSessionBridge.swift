import SluiceJSON
import SluiceWire
import SluiceLog

/// What the WHIP/WHEP and pre-call endpoints share: the session manager they open sessions
/// on, the bearer-token check, the SDP offer's checks, and the start of a resource's session
/// with the `connect` and start requests. Service thread only.
struct HTTPSessionBridge {
    static let sdpType = "application/sdp"

    let sessions: SessionManager
    let log: Log
    /// Ends resources outside the session manager's own calls (`SignalingServer.runSoon`).
    let runSoon: (@escaping () -> Void) -> Void

    /// The bridge of `signaling`, which must not have started yet.
    init(signaling: SignalingServer) {
        self.init(sessions: signaling.sessions, log: signaling.log,
                  runSoon: { [weak signaling] task in signaling?.runSoon(task) })
    }

    init(sessions: SessionManager, log: Log, runSoon: @escaping (@escaping () -> Void) -> Void) {
        self.sessions = sessions
        self.log = log
        self.runSoon = runSoon
    }

    /// The request's bearer credential: an app key, or an access token the server accepts.
    func authorize(_ request: HTTPRequest) throws(WHIPError) -> WHIPAuthorization.Credential {
        try WHIPAuthorization.credential(of: request, isAppKey: { sessions.config.app(withKey: $0) != nil }) {
            appKey, token throws(AccessRefusal) in
            try sessions.checkAccess(appKey: appKey, token: token)
        }.get()
    }

    /// A POST's body must be an SDP offer, said so by its `Content-Type`.
    static func requireOffer(_ request: HTTPRequest) throws(WHIPError) {
        guard request.mediaType == sdpType else {
            throw WHIPError(status: 415, message: "Content-Type must be \(sdpType), not '\(request.header("content-type") ?? "none")'",
                            reason: "UNSUPPORTED_MEDIA_TYPE", headers: [("accept-post", sdpType)])
        }
        guard !request.body.isEmpty else { throw .badRequest("The body must be an SDP offer") }
    }

    /// A fresh resource id, not one of `taken`.
    static func newID(notIn taken: (String) -> Bool) -> String {
        var id = SessionManager.randomSessionID()
        while taken(id) { id = SessionManager.randomSessionID() }
        return id
    }

    /// Opens `resource`'s session and sends it `connect` with the credential, then `method`
    /// with `params`: the resource answers the POST from their replies, 201 with the SDP answer
    /// at `location` (and the ICE servers as `Link` fields when `iceLinks`), or the error. A
    /// client that leaves before its answer ends the resource.
    func start(_ resource: HTTPSessionResource, credential: WHIPAuthorization.Credential, method: String,
               params: JSONObject, responder: HTTPResponder, label: String, location: String, iceLinks: Bool) {
        resource.onAnswer = { [log, unowned resource] result in
            switch result {
            case .success(let sdp):
                log.info("\(label): resource \(resource.id) has handle \(resource.handle ?? "?")",
                         (resource.session?.logFields ?? []) + (resource.handle.map { [.handle($0)] } ?? []))
                let links = iceLinks ? ICEServerLinks.headers(resource.iceServers) : []
                return responder.respond(WHIPEndpoint.withCORS(HTTPResponse(
                    status: 201, contentType: Self.sdpType, headers: [("location", location)] + links,
                    body: Array(sdp.utf8))))
            case .failure(let error):
                return responder.respond(WHIPEndpoint.withCORS(error.response))
            }
        }
        responder.onAbandon = { [weak resource] in resource?.end() }
        let session = sessions.open(output: resource)
        resource.session = session
        log.debug("\(label): resource \(resource.id) is connection \(session.connectionID)", session.logFields)
        let connect: JSONObject = credential.token.map { ["token": .string($0)] } ?? ["appKey": .string(credential.appKey)]
        sessions.receive(Self.request(HTTPSessionResource.connectRequestID, "connect", connect), from: session)
        sessions.receive(Self.request(HTTPSessionResource.startRequestID, method, params), from: session)
    }

    private static func request(_ id: Int, _ method: String, _ params: JSONObject) -> String {
        JSONValue.object(["jsonrpc": "2.0", "id": JSONValue(id), "method": .string(method),
                          "params": .object(params)]).serialized()
    }
}
