import SluiceJSON
import SluiceJSONParser
import SluiceSignaling
import Testing
@testable import SluiceServer

@Suite(.serialized) struct AdminAPIOpenAPITests {
    @Test func documentParsesAndListsEveryRoute() throws {
        // The raw text itself must parse: the fallback document would hide a typo.
        let raw = try JSONValue.parse(AdminOpenAPI.text)
        #expect(raw["openapi"]?.stringValue?.hasPrefix("3.0") == true)

        let fixture = try AdminFixture()
        let response = fixture.request("GET", "/api/v1/openapi.json", token: nil)
        #expect(response.status == 200)
        #expect(response.contentType == "application/json")
        let document = try JSONValue.parse(response.body)
        #expect(document["info"]?["version"] == .string(SluiceVersion.string))
        let paths = try #require(document["paths"]?.objectValue)
        let expected: [String: Set<String>] = [
            "/health": ["get"],
            "/metrics": ["get"],
            "/api/v1/openapi.json": ["get"],
            "/api/v1/streams": ["get"],
            "/api/v1/streams/{name}": ["get", "delete"],
            "/api/v1/streams/{name}/mute": ["post"],
            "/api/v1/streams/{name}/unmute": ["post"],
            "/api/v1/streams/{name}/record": ["post", "delete"],
            "/api/v1/recordings": ["get"],
            "/api/v1/recordings/{path}": ["get"],
            "/api/v1/sessions": ["get"],
            "/api/v1/sessions/{id}": ["delete"],
            "/api/v1/cluster": ["get"],
            "/api/v1/tables": ["get"],
            "/api/v1/drain": ["post"],
        ]
        #expect(Set(paths.keys) == Set(expected.keys))
        for (path, methods) in expected {
            let operations = Set(paths[path]?.objectValue?.keys.filter { $0 != "parameters" } ?? [])
            #expect(operations == methods, "\(path)")
        }
        // Admin operations declare 401; the open ones opt out of security. /metrics needs its
        // own token only when metrics.token is set: no requirement ({}) or that one.
        #expect(paths["/metrics"]?["get"]?["security"] == [[:], ["metricsToken": []]])
        for (path, item) in paths {
            for (method, operation) in item.objectValue ?? JSONObject() where method != "parameters" {
                let open = operation["security"] == []
                #expect(open == ["/health", "/api/v1/openapi.json"].contains(path), "\(method) \(path)")
                if !open { #expect(operation["responses"]?["401"] != nil, "\(method) \(path)") }
            }
        }
    }

    /// In the document as served: the common errors' references are made from `x-errors`.
    @Test func everyReferenceResolves() throws {
        let document = AdminOpenAPI.document(serverVersion: "test")
        var references: [String] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let object):
                for (key, member) in object {
                    if key == "$ref", let target = member.stringValue { references.append(target) } else { collect(member) }
                }
            case .array(let elements):
                elements.forEach(collect)
            default:
                break
            }
        }
        collect(document)
        #expect(references.count > 10)
        #expect(!String(decoding: document.serializedBytes(), as: UTF8.self).contains("x-errors"))
        for reference in references {
            #expect(reference.hasPrefix("#/"), "\(reference)")
            var node: JSONValue? = document
            for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
            #expect(node != nil, "unresolved \(reference)")
        }
    }

    @Test func documentedRoutesAreServed() throws {
        // Each documented operation answers something other than the router's own 404/405.
        let fixture = try AdminFixture()
        let document = AdminOpenAPI.document(serverVersion: "t")
        for (path, item) in document["paths"]?.objectValue ?? JSONObject() {
            for (method, _) in item.objectValue ?? JSONObject() where method != "parameters" {
                let concrete = path.replacingOccurrences(of: "{name}", with: "cam").replacingOccurrences(of: "{id}", with: "abc")
                    .replacingOccurrences(of: "{path}", with: "a/cam/x.webm")
                let response = fixture.request(method.uppercased(), concrete, body: #"{"kind":"audio"}"#)
                #expect(response.status != 405, "\(method) \(path)")
                if response.status == 404 {
                    // Only the stream or session is unknown, not the route.
                    let reason = try JSONValue.parse(response.body)["error"]?["reason"]?.stringValue
                    #expect(["STREAM_NOT_FOUND", "SESSION_NOT_FOUND", "RECORDING_NOT_FOUND"].contains(reason), "\(method) \(path)")
                }
            }
        }
    }
}
