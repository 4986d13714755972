import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SluiceJSON
import SluiceJSONParser
import Testing
@testable import SluiceServer

/// The admin API over real HTTP, through libwebsockets, on 127.0.0.1.
@Suite(.serialized) struct AdminAPIHTTPTests {
    @Test func adminAPIOverHTTP() throws {
        let fixture = try AdminFixture(start: true)
        let port = fixture.server.config.httpPort

        let metrics = try AdminHTTPClient.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("\nsluice_streams 0\n"))

        let refused = try AdminHTTPClient.exchange(port: port, "GET /api/v1/streams HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(refused.status == 401)
        #expect(refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(try JSONValue.parse(refused.body)["error"]?["reason"] == "UNAUTHORIZED")

        let auth = "Authorization: Bearer \(AdminFixture.token)\r\n"
        let streams = try AdminHTTPClient.exchange(port: port, "GET /api/v1/streams HTTP/1.1\r\nHost: x\r\n\(auth)\r\n")
        #expect(streams.status == 200)
        #expect(try JSONValue.parse(streams.body) == ["streams": []])

        let body = #"{"kind":"video"}"#
        let mute = try AdminHTTPClient.exchange(port: port, "POST /api/v1/streams/cam/mute HTTP/1.1\r\nHost: x\r\n\(auth)"
                                                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(mute.status == 404)
        #expect(try JSONValue.parse(mute.body)["error"]?["reason"] == "STREAM_NOT_FOUND")

        let wrongType = try AdminHTTPClient.exchange(port: port, "POST /api/v1/streams/cam/mute HTTP/1.1\r\nHost: x\r\n\(auth)"
                                                     + "Content-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(wrongType.status == 415)

        let openAPI = try AdminHTTPClient.exchange(port: port, "GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(openAPI.status == 200)
        #expect(try JSONValue.parse(openAPI.body)["paths"]?["/api/v1/streams"] != nil)
    }
}

/// One request on a fresh connection to 127.0.0.1; reads the response by Content-Length.
/// Reads time out after 10 s so a broken server fails the test instead of hanging it.
enum AdminHTTPClient {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    static func exchange(port: Int, _ request: String) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw AdminTestError("socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw AdminTestError("connect failed: errno \(errno)") }
        let bytes = Array(request.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw AdminTestError("send failed: errno \(errno)") }
            offset += sent
        }
        var received: [UInt8] = []
        func readMore() throws {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw AdminTestError("connection closed or timed out after \(received.count) bytes") }
            received.append(contentsOf: chunk[0..<count])
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            try readMore()
            headerEnd = received.indices.dropLast(3).first { Array(received[$0..<$0 + 4]) == separator }
        }
        guard let end = headerEnd else { throw AdminTestError("no header end") }
        let lines = String(decoding: received[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw AdminTestError("bad status line \(lines)") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while received.count < end + 4 + length { try readMore() }
        return Response(status: status, headers: headers, body: Array(received[(end + 4)..<(end + 4 + length)]))
    }
}
