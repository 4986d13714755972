import Foundation
import SluiceJSON
import SluiceJSONParser
@testable import SluiceSignaling
import Testing

/// The pure parts of WHIP and WHEP: paths, WHEP's query, the bearer token, error statuses.
@Suite struct WHIPRequestTests {
    @Test func pathsNameAnEndpointOrAResource() {
        #expect(WHIPPath("/whip/cam") == WHIPPath(kind: .whip, stream: "cam"))
        #expect(WHIPPath("/whep/cam/") == WHIPPath(kind: .whep, stream: "cam"))
        #expect(WHIPPath("/whep/cam/0a1b") == WHIPPath(kind: .whep, stream: "cam", resourceID: "0a1b"))
        #expect(WHIPPath("/whip") == nil)
        #expect(WHIPPath("/whip/") == nil)
        #expect(WHIPPath("/whip/cam/1/2") == nil)
        #expect(WHIPPath("/whop/cam") == nil)
        #expect(WHIPPath(kind: .whep, stream: "cam", resourceID: "ff").location == "/whep/cam/ff")
    }

    func query(_ text: String) throws(WHIPError) -> JSONValue? {
        try WHEPQuery.constraints(HTTPRequest(method: "POST", path: "/whep/cam", query: text).queryItems)
    }

    @Test func queryBecomesPlayConstraints() throws {
        #expect(try query("") == nil)
        #expect(try query("foo=bar&token=x") == nil)
        #expect(try query("quality=low&width=640") == ["video": ["quality": "low", "width": 640]])
        #expect(try query("quality=50&height=360&fps=15&bitrate=500")
                == ["video": ["quality": 50, "height": 360, "fps": 15, "bitrate": 500]])
        #expect(try query("quality=HIGH") == ["video": ["quality": "HIGH"]])
        #expect(try query("video=false&audio=true") == ["audio": true, "video": false])
        #expect(try query("audio=false") == ["audio": false])
        #expect(try query("video=true") == ["video": true])
        #expect(try query("width=320&width=640") == ["video": ["width": 640]])
    }

    @Test func badQueryValuesAre400NamingTheParameter() {
        for (text, name) in [("width=abc", "width"), ("width=0", "width"), ("height=-1", "height"),
                             ("fps=29.97", "fps"), ("bitrate=", "bitrate"), ("width=99999999999", "width"),
                             ("quality=best", "quality"), ("quality=101", "quality"), ("audio=yes", "audio"),
                             ("video=false&width=640", "video")] {
            #expect(throws: WHIPError.self, "\(text)") { try query(text) }
            do {
                _ = try query(text)
            } catch {
                #expect(error.status == 400)
                #expect(error.reason == "BAD_REQUEST")
                #expect(error.message.contains("'\(name)"), "\(text): \(error.message)")
            }
        }
    }

    @Test func bearerTokenIsAnAppKey() throws {
        func appKey(_ header: String?) -> Result<String, WHIPError> {
            var request = HTTPRequest(method: "POST", path: "/whip/cam")
            if let header { request.headers["authorization"] = header }
            return WHIPAuthorization.credential(of: request, isAppKey: { $0 == "demo" }) { key, _ throws(AccessRefusal) in
                guard key == "demo" else { throw .unknownAppKey }
                return SessionAccess(appKey: "demo", identity: nil, grants: .unrestricted)
            }.map(\.appKey)
        }
        #expect(try appKey("Bearer demo").get() == "demo")
        #expect(try appKey("bearer  demo ").get() == "demo")
        for header in [nil, "Basic ZGVtbw==", "Bearer"] {
            guard case .failure(let error) = appKey(header) else { Issue.record("\(header ?? "nil") passed"); continue }
            #expect(error.status == 401)
            #expect(error.headers.first { $0.name == "www-authenticate" }?.value == "Bearer realm=\"sluice\"")
        }
        guard case .failure(let unknown) = appKey("Bearer other") else { Issue.record("unknown key passed"); return }
        #expect(unknown.status == 401)
        #expect(unknown.reason == "UNKNOWN_APP_KEY")
        #expect(unknown.headers.first { $0.name == "www-authenticate" }?.value.contains("invalid_token") == true)
    }

    @Test func bearerOfATokensFormIsCheckedAsAToken() throws {
        let verifier = AccessTokenVerifier(secrets: ["demo": [testSecret]])
        func credential(_ bearer: String) -> Result<WHIPAuthorization.Credential, WHIPError> {
            var request = HTTPRequest(method: "POST", path: "/whip/cam")
            request.headers["authorization"] = "Bearer " + bearer
            return WHIPAuthorization.credential(of: request, isAppKey: { $0 == "demo" }) { key, token throws(AccessRefusal) in
                guard let token else { throw key == "demo" ? .token(.required) : .unknownAppKey }
                do throws(AccessTokenError) {
                    let t = try verifier.verify(token, now: Date().timeIntervalSince1970)
                    return SessionAccess(appKey: t.appKey, identity: t.identity, grants: t.grants)
                } catch {
                    throw .token(error)
                }
            }
        }
        let now = Int64(Date().timeIntervalSince1970)
        let good = forgeToken(claims: ["iss": "demo", "exp": JSONValue(now + 60)])
        let ok = try credential(good).get()
        #expect(ok.appKey == "demo" && ok.token == good)
        // An app that requires tokens refuses its key; a refused token is 401 with its reason.
        guard case .failure(let required) = credential("demo") else { Issue.record("key passed"); return }
        #expect(required.status == 401 && required.reason == "TOKEN_REQUIRED")
        guard case .failure(let expired) = credential(forgeToken(claims: ["iss": "demo", "exp": JSONValue(now - 600)])) else {
            Issue.record("expired token passed"); return
        }
        #expect(expired.status == 401 && expired.reason == "TOKEN_EXPIRED")
        #expect(expired.headers.first { $0.name == "www-authenticate" }?.value.contains("invalid_token") == true)
    }

    @Test func sessionErrorsMapToStatuses() throws {
        let table: [(RPCError, Int, String)] = [
            (.restrictedAccess, 403, "RESTRICTED_ACCESS"),
            (RPCError(.streamNameInUse), 409, "STREAM_NAME_IN_USE"),
            (RPCError(.streamNotFound), 409, "STREAM_NOT_FOUND"),
            (RPCError(.noCommonCodecs), 422, "NO_COMMON_CODECS"),
            (RPCError(.badSDP("line 3: \"m=video\"")), 400, "BAD_SDP"),
            (.limitReached("sessions"), 503, "LIMIT_REACHED"),
            (RPCError(.limitReached("maxStreams")), 503, "LIMIT_REACHED"),
            (.clusterUnavailable, 503, "CLUSTER_UNAVAILABLE"),
            (RPCError(.constraintsExceedLimits), 403, "CONSTRAINTS_EXCEED_LIMITS"),
            (.invalidParams("'stream' must be ..."), 400, "BAD_REQUEST"),
            (.internalError("x"), 500, "INTERNAL_ERROR"),
            (.notConnected, 500, "INTERNAL_ERROR"),
            (RPCError(AccessTokenError.expired), 401, "TOKEN_EXPIRED"),
            (.notGranted("publish of 'cam'"), 403, "NOT_GRANTED"),
        ]
        for (rpc, status, reason) in table {
            let error = WHIPError(rpc)
            #expect(error.status == status, "\(rpc.code)")
            #expect(error.reason == reason, "\(rpc.code)")
        }
        let notLive = WHIPError(RPCError(.streamNotFound))
        #expect(notLive.headers.first { $0.name == "retry-after" }?.value == "1")
        #expect(WHIPError(RPCError(.badSDP("line 3: \"m=video\""))).message.contains("line 3"))
        let body = WHIPError(.restrictedAccess).response
        #expect(try JSONValue.parse(body.body) == ["error": ["code": 403, "message": "Restricted access",
                                                             "reason": "RESTRICTED_ACCESS"]])
    }
}
