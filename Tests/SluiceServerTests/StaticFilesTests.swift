import Foundation
import SluiceJSON
import SluiceJSONParser
import SluiceSignaling
import Testing
@testable import SluiceServer

/// A throwaway web root with an outside directory next to it, for escape attempts.
final class WebRootFixture {
    let base: URL
    let root: URL
    let outside: URL

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-static-\(UUID().uuidString)")
        root = base.appendingPathComponent("web")
        outside = base.appendingPathComponent("secret")
        let files: [(String, String)] = [
            ("web/index.html", "<!doctype html><title>demo</title>"),
            ("web/sdk/sluice.js", "export const x = 1;"),
            ("web/demo.css", "body{}"),
            ("web/logo.svg", "<svg/>"),
            ("web/logo.png", "\u{89}PNG"),
            ("web/data.json", "{}"),
            ("web/notes.bin", "raw"),
            ("web/.hidden", "hidden"),
            ("web/docs/index.html", "docs index"),
            ("web/empty/keep.txt", "no index here"),
            ("secret/passwd", "outside the root"),
            ("web-sibling/file.txt", "shares the root's name as a prefix"),
        ]
        for (path, text) in files {
            let url = base.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let links = FileManager.default
        try links.createSymbolicLink(atPath: root.appendingPathComponent("escape.txt").path,
                                     withDestinationPath: outside.appendingPathComponent("passwd").path)
        try links.createSymbolicLink(atPath: root.appendingPathComponent("escape-dir").path,
                                     withDestinationPath: outside.path)
        try links.createSymbolicLink(atPath: root.appendingPathComponent("alias.css").path,
                                     withDestinationPath: "demo.css")
    }

    deinit { try? FileManager.default.removeItem(at: base) }
}

struct StaticFilesTests {
    private func get(_ files: StaticFiles, _ path: String, method: String = "GET") -> HTTPResponse {
        let router = HTTPRouter()
        router.add("GET", "/health") { _ in .json(["status": "ok"]) }
        router.add(nil, "/api") { _ in .json(["api": true]) }
        files.register(on: router)
        return router.route(HTTPRequest(method: method, path: path))
    }

    private func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func indexIsServedAtTheRoot() throws {
        let fixture = try WebRootFixture()
        let response = get(StaticFiles(root: fixture.root.path), "/")
        #expect(response.status == 200)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(text(response) == "<!doctype html><title>demo</title>")
        #expect(response.headers.contains { $0.name == "cache-control" && $0.value == "no-cache" })
        #expect(text(get(StaticFiles(root: fixture.root.path), "/index.html")) == "<!doctype html><title>demo</title>")
        #expect(text(get(StaticFiles(root: fixture.root.path), "/docs/")) == "docs index")
        #expect(text(get(StaticFiles(root: fixture.root.path), "/docs")) == "docs index")
        #expect(get(StaticFiles(root: fixture.root.path), "/empty").status == 404)
    }

    @Test(arguments: [
        ("/sdk/sluice.js", "text/javascript; charset=utf-8"),
        ("/demo.css", "text/css; charset=utf-8"),
        ("/logo.svg", "image/svg+xml"),
        ("/logo.png", "image/png"),
        ("/data.json", "application/json"),
        ("/notes.bin", "application/octet-stream"),
        ("/alias.css", "text/css; charset=utf-8"),
    ])
    func contentTypeFollowsTheExtension(path: String, type: String) throws {
        let fixture = try WebRootFixture()
        let response = get(StaticFiles(root: fixture.root.path), path)
        #expect(response.status == 200)
        #expect(response.contentType == type)
        #expect(!response.body.isEmpty)
    }

    @Test(arguments: [
        "/../secret/passwd", "/sdk/../../secret/passwd", "/..", "/./index.html", "/.hidden",
        "/escape.txt", "/escape-dir/passwd", "/../web-sibling/file.txt", "/sdk\\..\\..\\secret\\passwd",
        "/index.html\0.css", "relative/index.html",
    ])
    func escapesAreRefused(path: String) throws {
        let fixture = try WebRootFixture()
        let response = get(StaticFiles(root: fixture.root.path), path)
        #expect(response.status == 404, "\(path)")
        #expect(!text(response).contains("outside the root"))
        #expect(!text(response).contains("hidden"))
    }

    @Test func missingFileIsJSON404() throws {
        let fixture = try WebRootFixture()
        let response = get(StaticFiles(root: fixture.root.path), "/nope.js")
        #expect(response.status == 404)
        #expect(response.contentType == "application/json")
        #expect(try JSONValue.parse(response.body) == ["error": ["code": 404, "message": "Not found", "reason": "NOT_FOUND"]])
        // A root that does not exist serves nothing, and says so the same way.
        #expect(get(StaticFiles(root: fixture.base.appendingPathComponent("absent").path), "/").status == 404)
    }

    @Test func otherRoutesKeepTheirPrefixes() throws {
        let fixture = try WebRootFixture()
        let files = StaticFiles(root: fixture.root.path)
        #expect(text(get(files, "/health")) == #"{"status":"ok"}"#)
        #expect(text(get(files, "/api/v1/streams", method: "POST")) == #"{"api":true}"#)
        #expect(get(files, "/index.html", method: "HEAD").status == 200)
        // Only GET is served; other methods on a static path are 405.
        #expect(get(files, "/index.html", method: "POST").status == 405)
    }

    @Test func filesOverTheCapAreRefused() throws {
        let fixture = try WebRootFixture()
        let capped = StaticFiles(root: fixture.root.path, maxFileBytes: 10)
        #expect(get(capped, "/demo.css").status == 200)
        let big = get(capped, "/index.html")
        #expect(big.status == 500)
        #expect(try JSONValue.parse(big.body)["error"]?["reason"] == "FILE_TOO_LARGE")
    }

    @Test func filesAreReadPerRequest() throws {
        let fixture = try WebRootFixture()
        let files = StaticFiles(root: fixture.root.path)
        #expect(text(get(files, "/demo.css")) == "body{}")
        try Data("p{}".utf8).write(to: fixture.root.appendingPathComponent("demo.css"))
        #expect(text(get(files, "/demo.css")) == "p{}")
    }

    @Test func relativeRootIsFromTheWorkingDirectory() throws {
        let fixture = try WebRootFixture()
        // Climb from the working directory to "/", then down to the fixture: a relative path
        // that needs no chdir (tests run in parallel in one process).
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + fixture.root.path.dropFirst()
        #expect(!relative.hasPrefix("/"))
        #expect(text(get(StaticFiles(root: relative), "/sdk/sluice.js")) == "export const x = 1;")
    }
}
