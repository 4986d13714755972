#if os(Linux)
import Foundation
import Glibc

/// A WebSocket client (RFC 6455) over a blocking TCP socket and one reader thread, for Linux,
/// where FoundationNetworking's URLSessionWebSocketTask is not usable. ws:// only.
///
/// The reader thread owns the socket's lifetime: it alone closes the descriptor, so a
/// `close()` from another thread can never hit a descriptor number reused meanwhile.
// @unchecked: the `var`s change only under `lock`; the reader thread, `fd`'s one writer, alone reads it without.
public final class POSIXWebSocketChannel: SignalingChannel, @unchecked Sendable {
    public let url: URL
    /// A message (after reassembly) larger than this closes the connection.
    public let maxMessageBytes: Int
    /// Bound on connect, the HTTP upgrade and the closing handshake.
    public let handshakeTimeoutSeconds: Int
    /// Subprotocols offered in Sec-WebSocket-Protocol (Janus wants `janus-protocol`); none by default.
    public let protocols: [String]

    private static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    private let lock = NSLock()
    private var fd: Int32 = -1
    private var socketClosed = false
    private var closeSent = false
    private var handler: (@Sendable (SignalingChannelEvent) -> Void)?

    public init(url: URL, maxMessageBytes: Int = 16 << 20, handshakeTimeoutSeconds: Int = 10, protocols: [String] = []) {
        self.url = url
        self.maxMessageBytes = maxMessageBytes
        self.handshakeTimeoutSeconds = handshakeTimeoutSeconds
        self.protocols = protocols
    }

    public func open(handler: @escaping @Sendable (SignalingChannelEvent) -> Void) async throws {
        guard url.scheme?.lowercased() == "ws", let host = url.host, !host.isEmpty else {
            throw SignalingError.unsupportedURL(url.absoluteString)
        }
        let port = url.port ?? 80
        let path = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?" + $0 } ?? "")
        lock.critical { self.handler = handler }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            Thread.detachNewThread { [self] in
                let leftover: [UInt8]
                do {
                    leftover = try connectAndUpgrade(host: host, port: port, path: path)
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                continuation.resume()
                readLoop(buffer: leftover)
            }
        }
    }

    public func send(text: String) async throws {
        try write(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
    }

    public func close(code: UInt16, reason: String) {
        lock.lock()
        let shouldSend = fd >= 0 && !socketClosed && !closeSent
        lock.unlock()
        guard shouldSend else { return }
        try? write(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: reason)))
        lock.lock()
        closeSent = true
        lock.unlock()
        // The server answers with its close frame and then closes TCP; if it does not, stop waiting.
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(handshakeTimeoutSeconds)) { [self] in
            lock.lock()
            if !socketClosed { shutdown(fd, Int32(SHUT_RDWR)) }
            lock.unlock()
        }
    }

    deinit {
        lock.lock()
        if fd >= 0 && !socketClosed { Glibc.close(fd) }
        lock.unlock()
    }

    // MARK: Connect and upgrade (reader thread, before the loop)

    private func connectAndUpgrade(host: String, port: Int, path: String) throws -> [UInt8] {
        let socketFD = try Self.connect(host: host, port: port, timeoutSeconds: handshakeTimeoutSeconds)
        lock.lock()
        fd = socketFD
        lock.unlock()

        var keyBytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in keyBytes.indices { keyBytes[i] = generator.next() }
        let key = Data(keyBytes).base64EncodedString()
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let request = "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
            + (protocols.isEmpty ? "" : "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n") + "\r\n"
        do {
            try writeAll(Array(request.utf8))
            let (head, leftover) = try readResponseHead()
            try Self.checkUpgrade(head: head, key: key, protocols: protocols)
            var noTimeout = timeval(tv_sec: 0, tv_usec: 0)
            setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &noTimeout, socklen_t(MemoryLayout<timeval>.size))
            return leftover
        } catch {
            lock.lock()
            socketClosed = true
            Glibc.close(socketFD)
            lock.unlock()
            throw error
        }
    }

    private static func connect(host: String, port: Int, timeoutSeconds: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SignalingError.socket("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            lastError = String(cString: strerror(errno))
            Glibc.close(fd)
        }
        throw SignalingError.socket("connect to \(host):\(port): \(lastError)")
    }

    /// Reads up to the blank line after the headers; returns the head and any bytes after it.
    private func readResponseHead() throws -> (String, [UInt8]) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = Self.find(terminator, in: received) {
                return (String(decoding: received[..<end], as: UTF8.self), Array(received[(end + 4)...]))
            }
            guard received.count < 16384 else { throw SignalingError.handshakeFailed("response head too long") }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                throw SignalingError.handshakeFailed(count == 0 ? "connection closed" : String(cString: strerror(errno)))
            }
            received += chunk[0..<count]
        }
    }

    /// RFC 6455 section 4.1: status 101, Upgrade, the accept hash, and no subprotocol that
    /// was not offered.
    static func checkUpgrade(head: String, key: String, protocols: [String] = []) throws {
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, statusParts[1] == "101" else {
            throw SignalingError.handshakeFailed("status line: \(lines.first ?? "")")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard headers["upgrade"]?.lowercased() == "websocket" else {
            throw SignalingError.handshakeFailed("no Upgrade: websocket")
        }
        let expected = Data(SHA1.digest(Array((key + acceptGUID).utf8))).base64EncodedString()
        guard headers["sec-websocket-accept"] == expected else {
            throw SignalingError.handshakeFailed("wrong Sec-WebSocket-Accept")
        }
        if let chosen = headers["sec-websocket-protocol"], !protocols.contains(chosen) {
            throw SignalingError.handshakeFailed("the server chose subprotocol '\(chosen)', which was not offered")
        }
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for i in 0...(bytes.count - pattern.count) where bytes[i] == pattern[0] {
            if Array(bytes[i..<(i + pattern.count)]) == pattern { return i }
        }
        return nil
    }

    // MARK: Reading (reader thread)

    private func readLoop(buffer initial: [UInt8]) {
        var buffer = initial
        var message: [UInt8] = []
        var messageIsText = false
        var inMessage = false
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            do {
                while let (frame, consumed) = try WebSocketFrame.parse(buffer[...], maxPayload: maxMessageBytes) {
                    buffer.removeFirst(consumed)
                    switch frame.opcode {
                    case .ping:
                        try? write(WebSocketFrame(opcode: .pong, payload: frame.payload))
                    case .pong:
                        break
                    case .close:
                        let (code, reason) = WebSocketFrame.parseClose(frame.payload)
                        lock.lock()
                        let echo = !closeSent
                        lock.unlock()
                        if echo {
                            try? write(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code ?? 1000, reason: "")))
                        }
                        finish(code: code, reason: reason)
                        return
                    case .text, .binary, .continuation:
                        if frame.opcode == .continuation {
                            guard inMessage else { return fail(code: 1002, "continuation without a message") }
                            message += frame.payload
                        } else {
                            guard !inMessage else { return fail(code: 1002, "new message inside a fragmented one") }
                            message = frame.payload
                            messageIsText = frame.opcode == .text
                            inMessage = true
                        }
                        guard message.count <= maxMessageBytes else { return fail(code: 1009, "message too large") }
                        if frame.fin {
                            inMessage = false
                            // The server sends text only; a binary message is not JSON-RPC.
                            if messageIsText { deliver(.text(String(decoding: message, as: UTF8.self))) }
                            message = []
                        }
                    }
                }
            } catch {
                return fail(code: 1002, "bad frame: \(error)")
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                if count < 0 && errno == EINTR { continue }
                finish(code: nil, reason: count == 0 ? "connection closed" : String(cString: strerror(errno)))
                return
            }
            buffer += chunk[0..<count]
        }
    }

    private func fail(code: UInt16, _ reason: String) {
        try? write(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: "")))
        finish(code: nil, reason: reason)
    }

    private func deliver(_ event: SignalingChannelEvent) {
        lock.lock()
        let handler = self.handler
        lock.unlock()
        handler?(event)
    }

    private func finish(code: UInt16?, reason: String) {
        lock.lock()
        guard !socketClosed else {
            lock.unlock()
            return
        }
        socketClosed = true
        Glibc.close(fd)
        let handler = self.handler
        self.handler = nil
        lock.unlock()
        handler?(.closed(code: code, reason: reason))
    }

    // MARK: Writing (any thread)

    private func write(_ frame: WebSocketFrame) throws {
        var generator = SystemRandomNumberGenerator()
        let mask: UInt32 = generator.next()
        let bytes = frame.serialized(mask: (UInt8(truncatingIfNeeded: mask >> 24), UInt8(truncatingIfNeeded: mask >> 16),
                                            UInt8(truncatingIfNeeded: mask >> 8), UInt8(truncatingIfNeeded: mask)))
        lock.lock()
        defer { lock.unlock() }
        guard fd >= 0, !socketClosed, !closeSent else { throw SignalingError.notOpen }
        try writeAll(bytes)
    }

    /// Caller holds the lock (or is the only thread, during the upgrade).
    private func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw SignalingError.socket("send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }
}
#endif
