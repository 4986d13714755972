import Dispatch

/// Hook POSTs to `http://` and `https://` backends over Sluice's own small HTTP/1.1 client,
/// one short blocking exchange per request on a global dispatch queue, bounded by the
/// request's deadline. `https://` goes over OpenSSL (`HookTLSConnection`), verified against the
/// system's CA store or the app's `hooks.caFile`.
///
/// Why not URLSession: on Linux it goes through libcurl, and swift-corelibs-foundation leaks
/// about 60 bytes per request there (`CFURLSessionCurlHostIsEqual`, seen under valgrind), so a
/// server that sends a hook for every status would grow for ever.
public final class SocketHookTransport: HookTransport, Sendable {
    public init() {}

    public func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void) {
        DispatchQueue.global().async {
            completion(Self.exchange(request))
        }
    }

    /// Sends the POST and reads the status line; nothing else of the answer matters.
    static func exchange(_ request: HookRequest) -> HookOutcome {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, request.timeoutMs)) * 1_000_000
        guard let target = HookURL(request.url) else { return .failed("not an http:// or https:// URL: \(request.url)") }
        var tlsContext: HookTLSContext?
        if target.isSecure {
            switch HookTLSContext.shared(caFile: request.caFile) {
            case .success(let context): tlsContext = context
            case .failure(let error): return .failed(error.description)
            }
        }
        guard let socket = HookSocket.connect(host: target.host, port: target.port, deadline: deadline) else {
            return DispatchTime.now().uptimeNanoseconds >= deadline ? .timedOut : .failed("cannot connect to \(target.authority)")
        }
        var message = "POST \(target.path) HTTP/1.1\r\nHost: \(target.authority)\r\nConnection: close\r\n"
        message += "Content-Length: \(request.body.count)\r\n"
        for header in request.headers { message += "\(header.name): \(header.value)\r\n" }
        let bytes = Array((message + "\r\n").utf8) + request.body

        let stream: HookStream
        if let tlsContext {
            guard let connection = HookTLSConnection(socket: socket, context: tlsContext, host: target.host) else {
                return .failed("TLS: cannot set up a connection to \(target.authority)")
            }
            if let outcome = outcome(of: connection.handshake()) { return outcome }
            stream = .tls(connection)
        } else {
            stream = .plain(socket)
        }
        if let outcome = outcome(of: stream.sendAll(bytes)) { return outcome }
        return readStatus(stream)
    }

    /// The outcome a failed step ends the exchange with; nil when the step succeeded.
    private static func outcome(of step: HookSocket.Step) -> HookOutcome? {
        switch step {
        case .done: return nil
        case .timedOut: return .timedOut
        case .failed(let why): return .failed(why)
        }
    }

    /// Reads up to the end of the status line ("HTTP/1.1 204 No Content\r\n").
    private static func readStatus(_ stream: HookStream) -> HookOutcome {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while !received.contains(0x0A) {
            guard received.count < 8192 else { return .failed("no status line in the first 8 KiB") }
            switch chunk.withUnsafeMutableBytes({ stream.receive(into: $0) }) {
            case .bytes(let count): received += chunk.prefix(count)
            case .closed: return .failed("the connection closed before an answer")
            case .timedOut: return .timedOut
            case .failed(let why): return .failed(why)
            }
        }
        guard let status = HookURL.status(ofResponseStart: received) else { return .failed("not an HTTP answer") }
        return .status(status)
    }
}

/// The bytes of one exchange, over TCP or TLS (hooks, and BlockingHTTPClient).
enum HookStream {
    case plain(HookSocket)
    case tls(HookTLSConnection)

    func sendAll(_ bytes: [UInt8]) -> HookSocket.Step {
        switch self {
        case .plain(let socket): return bytes.withUnsafeBytes { socket.sendAll($0) }
        case .tls(let connection): return connection.sendAll(bytes)
        }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> HookSocket.Received {
        switch self {
        case .plain(let socket): return socket.receive(into: buffer)
        case .tls(let connection): return connection.receive(into: buffer)
        }
    }
}
