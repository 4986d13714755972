import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct TestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking TCP connection to 127.0.0.1 with just enough HTTP/1.1 and RFC 6455 for tests.
/// Reads time out after 10 s so a broken server fails a test instead of hanging it.
final class TestConnection {
    let fd: Int32
    private var pending: [UInt8] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError(description: "socket failed") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw TestClientError(description: "connect failed: errno \(errno)")
        }
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw TestClientError(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    /// Reads exactly `count` bytes.
    func read(_ count: Int) throws -> [UInt8] {
        while pending.count < count {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard received > 0 else { throw TestClientError(description: "connection closed or timed out (\(received))") }
            pending.append(contentsOf: chunk[0..<received])
        }
        let result = Array(pending[0..<count])
        pending.removeFirst(count)
        return result
    }

    /// True when the peer has closed (EOF) within the read timeout.
    func readsEOF() -> Bool {
        if !pending.isEmpty { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    func readLine() throws -> String {
        var line: [UInt8] = []
        while true {
            let byte = try read(1)[0]
            if byte == UInt8(ascii: "\n") { break }
            if byte != UInt8(ascii: "\r") { line.append(byte) }
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Status code, lower-cased headers, and body (by content-length).
    func readHTTPResponse() throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw TestClientError(description: "bad status line '\(statusLine)'")
        }
        var headers: [String: String] = [:]
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        return (status, headers, try read(length))
    }

    // MARK: WebSocket

    /// Sends the upgrade request and returns the response status.
    func upgrade(path: String = "/ws", subprotocol: String? = nil) throws -> Int {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        try write(request + "\r\n")
        let response = try readHTTPResponse()
        if response.status == 101 {
            guard response.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" else {
                throw TestClientError(description: "bad Sec-WebSocket-Accept")
            }
        }
        return response.status
    }

    /// One masked frame.
    func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame.append(contentsOf: [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)])
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame.append(contentsOf: mask)
        frame.reserveCapacity(frame.count + payload.count)
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index & 3]) }
        try write(frame)
    }

    func sendText(_ text: String) throws { try sendFrame(opcode: 0x1, payload: Array(text.utf8)) }

    /// The next data or close frame; pings are answered and skipped.
    func readFrame() throws -> (opcode: UInt8, payload: [UInt8]) {
        while true {
            let header = try read(2)
            let opcode = header[0] & 0x0F
            var length = Int(header[1] & 0x7F)
            if length == 126 {
                let extended = try read(2)
                length = Int(extended[0]) << 8 | Int(extended[1])
            } else if length == 127 {
                length = try read(8).reduce(0) { $0 << 8 | Int($1) }
            }
            let payload = try read(length)
            if opcode == 0x9 {
                try sendFrame(opcode: 0xA, payload: payload)
                continue
            }
            return (opcode, payload)
        }
    }

    func readText() throws -> String {
        let frame = try readFrame()
        guard frame.opcode == 0x1 else {
            throw TestClientError(description: "expected a text frame, got opcode \(frame.opcode)")
        }
        return String(decoding: frame.payload, as: UTF8.self)
    }
}
