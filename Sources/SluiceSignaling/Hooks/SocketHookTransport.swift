import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Hook POSTs to `http://` backends over a plain socket, one short blocking exchange per
/// request on a global dispatch queue, bounded by the request's deadline.
///
/// Why not URLSession: on Linux it goes through libcurl, and swift-corelibs-foundation leaks
/// about 60 bytes per request there (`CFURLSessionCurlHostIsEqual`, seen under valgrind), so a
/// server that sends a hook for every status would grow for ever. `https://` backends still go
/// through `URLSessionHookTransport` (see `HookTransports`), until the server has its own TLS
/// client.
public final class SocketHookTransport: HookTransport, @unchecked Sendable {
    public init() {}

    public func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void) {
        DispatchQueue.global().async {
            completion(Self.exchange(request))
        }
    }

    /// Sends the POST and reads the status line; nothing else of the answer matters.
    static func exchange(_ request: HookRequest) -> HookOutcome {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, request.timeoutMs)) * 1_000_000
        guard let target = HookURL(request.url) else { return .failed("not an http:// URL: \(request.url)") }
        guard let fd = connectSocket(to: target, deadline: deadline) else {
            return DispatchTime.now().uptimeNanoseconds >= deadline ? .timedOut : .failed("cannot connect to \(target.authority)")
        }
        defer { close(fd) }
        var message = "POST \(target.path) HTTP/1.1\r\nHost: \(target.authority)\r\nConnection: close\r\n"
        message += "Content-Length: \(request.body.count)\r\n"
        for header in request.headers { message += "\(header.name): \(header.value)\r\n" }
        let bytes = Array((message + "\r\n").utf8) + request.body
        switch writeAll(fd, bytes, deadline: deadline) {
        case .timedOut: return .timedOut
        case .failed(let why): return .failed(why)
        case .done: break
        }
        return readStatus(fd, deadline: deadline)
    }

    private enum Step { case done, timedOut, failed(String) }

    /// Waits for `events` until the deadline; false when it passed.
    private static func wait(_ fd: Int32, _ events: Int16, deadline: UInt64) -> Bool {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let milliseconds = Int32(min(UInt64(Int32.max), (deadline - now + 999_999) / 1_000_000))
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // the next call reports the error
        }
    }

    private static func connectSocket(to target: HookURL, deadline: UInt64) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(target.host, String(target.port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                                | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            if errno == EINPROGRESS, wait(fd, Int16(POLLOUT), deadline: deadline) {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 { return fd }
            }
            close(fd)
            if DispatchTime.now().uptimeNanoseconds >= deadline { return nil }
        }
        return nil
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], deadline: UInt64) -> Step {
        var offset = 0
        while offset < bytes.count {
            guard wait(fd, Int16(POLLOUT), deadline: deadline) else { return .timedOut }
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                continue
            } else {
                return .failed("the connection broke while sending")
            }
        }
        return .done
    }

    /// Reads up to the end of the status line ("HTTP/1.1 204 No Content\r\n").
    private static func readStatus(_ fd: Int32, deadline: UInt64) -> HookOutcome {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while !received.contains(0x0A) {
            guard received.count < 8192 else { return .failed("no status line in the first 8 KiB") }
            guard wait(fd, Int16(POLLIN), deadline: deadline) else { return .timedOut }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk.prefix(count)
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                continue
            } else {
                return .failed("the connection closed before an answer")
            }
        }
        guard let status = HookURL.status(ofResponseStart: received) else { return .failed("not an HTTP answer") }
        return .status(status)
    }
}

/// The parts of an `http://host[:port][/path]` URL a hook needs.
struct HookURL: Equatable {
    var host: String
    var port: Int
    /// The request target, "/" at least, query included.
    var path: String
    /// What the Host header says.
    var authority: String

    init(host: String, port: Int, path: String, authority: String) {
        (self.host, self.port, self.path, self.authority) = (host, port, path, authority)
    }

    init?(_ url: String) {
        guard url.lowercased().hasPrefix("http://") else { return nil }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        path = slash < rest.endIndex ? String(rest[slash...]) : "/"
        self.authority = authority
        var hostPart = Substring(authority)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { return nil }
        host = String(hostPart)
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { return nil }
            port = value
        } else {
            port = 80
        }
        guard !path.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }) else { return nil }
    }

    /// The status code of "HTTP/1.x NNN ...", or nil.
    static func status(ofResponseStart bytes: [UInt8]) -> Int? {
        let line = String(decoding: bytes.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
              let code = Int(parts[1]), (100...599).contains(code) else { return nil }
        return code
    }
}

/// `http://` hooks over `SocketHookTransport`, anything else (`https://`) over URLSession.
public final class HookTransports: HookTransport, @unchecked Sendable {
    private let plain = SocketHookTransport()
    private lazy var secure = URLSessionHookTransport()
    private let lock = DispatchQueue(label: "sluice.hooks.transports")

    public init() {}

    public func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void) {
        if request.url.lowercased().hasPrefix("http://") {
            plain.post(request, completion: completion)
        } else {
            let transport = lock.sync { secure }
            transport.post(request, completion: completion)
        }
    }
}
