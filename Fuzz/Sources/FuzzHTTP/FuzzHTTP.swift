import SluiceJSON
import SluiceJSONParser
import Foundation
import SluiceRecord
@testable import SluiceServer
@testable import SluiceSignaling

/// Arbitrary HTTP requests to every route of a built (not started) server: the admin API,
/// `/metrics`, `/health`, static files and WHIP/WHEP. libwebsockets frames the request; what
/// Sluice itself reads from it is the method, path, query, a few headers and the body, and all
/// of them come from the input. Nothing may trap, every answer must have a valid status, a
/// JSON answer must parse, and no static file may come from outside the web root.
///
/// The same request also goes to the HTTPS redirect (`server.tls.redirectPort`), with the
/// body's first line as its Host header: the Location it builds must stay one https:// URL.
///
/// Input: byte 0 picks the method, byte 1 the headers (bit 0: the right admin token, bit 1:
/// the app key as bearer, bits 2-3: the content type, bit 4: the body's first line as a
/// Range header), byte 2 a known path prefix; then the rest of the path and query up to a
/// newline, then the body.
///
/// The server records into a folder that holds one recording, `app/cam/x.webm`: no download
/// may answer 200 or 206 for anything else, and a 206 must carry what its Content-Range says.
let adminToken = "fuzz-admin-token"
let webRoot: String = {
    // Fuzz/Sources/FuzzHTTP/FuzzHTTP.swift -> the repo's web/
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(4)
    return parts.joined(separator: "/") + "/web"
}()

let server: Server = {
    var config = ServerConfig()
    config.httpPort = 0
    config.rtcPort = 0
    config.rtcWorkers = 1
    config.adminToken = adminToken
    // The same token guards /metrics, so both its 401 and its 200 are reached; a TURN server
    // puts Link header fields on WHIP/WHEP answers.
    config.metricsToken = adminToken
    config.turnServers = [TURNServer(urls: ["turn:127.0.0.1:3478?transport=udp"], secret: "fuzz-turn-secret")]
    config.logLevel = "error"
    config.webRoot = webRoot
    config.recording = RecordingSettings(folder: recordingFolder)
    // A real call log file, so `/api/v1/calls` queries walk SQLite's indexes.
    config.callDatabase = NSTemporaryDirectory() + "sluice-fuzz-http-calls.db"
    do {
        return try Server(config: config)
    } catch {
        fatalError("FuzzHTTP: cannot build the server: \(error)")
    }
}()

let recordingFolder: String = {
    let folder = NSTemporaryDirectory() + "sluice-fuzz-http-recordings"
    try? FileManager.default.createDirectory(atPath: folder + "/app/cam", withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: folder + "/app/cam/x.webm", contents: Data(recordingBytes))
    return folder
}()
let recordingBytes = (0..<5000).map { UInt8($0 % 253) }

let staticFiles = StaticFiles(root: webRoot)
let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "BREW"]
let prefixes = ["/api/v1/streams/", "/api/v1/sessions/", "/whip/", "/whep/", "/metrics", "/health",
                "/api/v1/openapi.json", "/", "/sdk/", "/whip/cam/", "/api/v1/streams/cam/", "/ws",
                "/api/v1/recordings", "/api/v1/recordings/app/cam/", "/api/v1/streams/cam/record", "/api/v1/calls",
                "/api/v1/tables"]
let contentTypes = ["application/json", "application/sdp", "application/trickle-ice-sdpfrag", "text/plain; charset=x"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 3 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let flags = bytes[1]
    let rest = bytes[3...]
    let lineEnd = rest.firstIndex(of: 0x0A) ?? rest.endIndex
    let target = prefixes[Int(bytes[2]) % prefixes.count] + String(decoding: rest[rest.startIndex..<lineEnd], as: UTF8.self)
    let body = lineEnd < rest.endIndex ? Array(rest[(lineEnd + 1)...]) : []
    let question = target.firstIndex(of: "?")
    let path = question.map { String(target[..<$0]) } ?? target
    let query = question.map { String(target[target.index(after: $0)...]) } ?? ""

    var headers: [String: String] = ["content-type": contentTypes[Int(flags >> 2) & 3]]
    if flags & 1 != 0 { headers["authorization"] = "Bearer \(adminToken)" }
    if flags & 2 != 0 { headers["authorization"] = "Bearer defaultApp" }
    let range = String(decoding: body.prefix { $0 != 0x0A }, as: UTF8.self)
    if flags & 16 != 0 { headers["range"] = range }
    let request = HTTPRequest(method: methods[Int(bytes[0]) % methods.count], path: path, query: query,
                              headers: headers, body: body)
    let response = server.signaling.router.route(request)
    // What the service thread does when it wakes: media events, then the work queued for it
    // (a WHIP resource that failed is removed there, and its session ends).
    server.signaling.serviceWoke()

    guard (100..<600).contains(response.status) else { fatalError("status \(response.status) for \(path)") }
    if response.contentType == "application/json", (try? JSONValue.parse(response.body)) == nil {
        fatalError("invalid JSON answer for \(request.method) \(path)")
    }
    // The static files, asked directly (other routes own some prefixes of the same paths).
    if path.split(separator: "/").contains(where: { $0 == ".." || $0.hasPrefix(".") }),
       staticFiles.response(for: request).status == 200 {
        fatalError("a static file outside the web root or hidden: \(path)")
    }
    // "/api/v1/recordings/" is the listing, as "/api/v1/recordings" is; anything below it a download.
    if path.hasPrefix(AdminAPI.recordingsPath + "/"), path != AdminAPI.recordingsPath + "/",
       response.status == 200 || response.status == 206 {
        guard path == AdminAPI.recordingsPath + "/app/cam/x.webm" else { fatalError("a download of \(path)") }
        checkDownload(response)
    }
    checkRange(range)
    var redirected = request
    redirected.headers["host"] = String(decoding: body.prefix { $0 != 0x0A }, as: UTF8.self)
    let redirect = HTTPSRedirect.response(for: redirected, httpsPort: 8443, fallbackHost: "127.0.0.1")
    guard redirect.status == 308, let location = redirect.headers.first(where: { $0.name == "location" })?.value,
          location.hasPrefix("https://"), !location.utf8.contains(where: { $0 < 0x21 || $0 > 0x7E }) else {
        fatalError("a redirect Location that is not one https:// URL: \(redirect.headers)")
    }
    return 0
}

/// A download of the one recording: 200 is all of it, 206 exactly the bytes its Content-Range names.
func checkDownload(_ response: HTTPResponse) {
    if response.status == 200 {
        guard response.body == recordingBytes else { fatalError("200 without the whole file") }
        return
    }
    guard let header = response.headers.first(where: { $0.name == "content-range" })?.value,
          header.hasPrefix("bytes "), header.hasSuffix("/\(recordingBytes.count)") else {
        fatalError("206 without a valid Content-Range: \(response.headers)")
    }
    let span = header.dropFirst("bytes ".count).prefix { $0 != "/" }.split(separator: "-")
    guard span.count == 2, let first = Int(span[0]), let last = Int(span[1]), first <= last,
          last < recordingBytes.count, Array(recordingBytes[first...last]) == response.body else {
        fatalError("206 whose body is not its Content-Range \(header)")
    }
}

/// Every parse of a Range header stays inside the file.
func checkRange(_ header: String) {
    for size in [0, 1, 5000] {
        if case .range(let r) = ByteRange.parse(header, size: size), !(0 <= r.first && r.first <= r.last && r.last < size) {
            fatalError("range \(r) of \(header) outside a file of \(size) bytes")
        }
    }
}
