import Dispatch

/// One short blocking HTTP/1.1 exchange that reads the whole answer, over the hooks' own
/// client (HookSocket, and HookTLSConnection for `https://`): for the cluster's control
/// channel between nodes, which needs the answer's body as well as its status. The caller runs
/// it off the signaling thread; every wait is bounded by `timeoutMs`.
public enum BlockingHTTPClient {
    public enum Outcome: Sendable, Equatable {
        case response(status: Int, body: [UInt8])
        case timedOut
        case failed(String)
    }

    /// The largest answer read; a longer one fails (the control channel's answers are small).
    public static let maxResponseBytes = 256 * 1024

    public static func exchange(method: String, url: String, headers: [(name: String, value: String)] = [],
                                body: [UInt8] = [], timeoutMs: Int, caFile: String? = nil) -> Outcome {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeoutMs)) * 1_000_000
        guard let target = HookURL(url) else { return .failed("not an http:// or https:// URL: \(url)") }
        var tlsContext: HookTLSContext?
        if target.isSecure {
            switch HookTLSContext.shared(caFile: caFile) {
            case .success(let context): tlsContext = context
            case .failure(let error): return .failed(error.description)
            }
        }
        guard let socket = HookSocket.connect(host: target.host, port: target.port, deadline: deadline) else {
            return DispatchTime.now().uptimeNanoseconds >= deadline ? .timedOut : .failed("cannot connect to \(target.authority)")
        }
        var message = "\(method) \(target.path) HTTP/1.1\r\nHost: \(target.authority)\r\nConnection: close\r\n"
        message += "Content-Length: \(body.count)\r\n"
        for header in headers { message += "\(header.name): \(header.value)\r\n" }
        let bytes = Array((message + "\r\n").utf8) + body

        let stream: HookStream
        if let tlsContext {
            guard let connection = HookTLSConnection(socket: socket, context: tlsContext, host: target.host) else {
                return .failed("TLS: cannot set up a connection to \(target.authority)")
            }
            if let failure = outcome(of: connection.handshake()) { return failure }
            stream = .tls(connection)
        } else {
            stream = .plain(socket)
        }
        if let failure = outcome(of: stream.sendAll(bytes)) { return failure }
        return readResponse(stream)
    }

    private static func outcome(of step: HookSocket.Step) -> Outcome? {
        switch step {
        case .done: return nil
        case .timedOut: return .timedOut
        case .failed(let why): return .failed(why)
        }
    }

    /// Reads the head, then the body up to its Content-Length (or to the close without one).
    private static func readResponse(_ stream: HookStream) -> Outcome {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var head: ResponseHead?
        while true {
            if head == nil, let end = headEnd(received) {
                guard let parsed = ResponseHead(String(decoding: received[..<end], as: UTF8.self)) else {
                    return .failed("not an HTTP answer")
                }
                if parsed.chunked { return .failed("a chunked answer (not expected from a Sluice node)") }
                if let length = parsed.contentLength, length > maxResponseBytes {
                    return .failed("an answer of \(length) bytes (more than \(maxResponseBytes))")
                }
                head = parsed
                received.removeFirst(end + 4)
            }
            if let head, let length = head.contentLength, received.count >= length {
                return .response(status: head.status, body: Array(received.prefix(length)))
            }
            guard received.count <= maxResponseBytes + 8192 else { return .failed("an answer over \(maxResponseBytes) bytes") }
            switch chunk.withUnsafeMutableBytes({ stream.receive(into: $0) }) {
            case .bytes(let count):
                received += chunk.prefix(count)
            case .closed:
                guard let head else { return .failed("the connection closed before an answer") }
                guard head.contentLength == nil else { return .failed("the connection closed inside the answer's body") }
                return .response(status: head.status, body: received)
            case .timedOut:
                return .timedOut
            case .failed(let why):
                return .failed(why)
            }
        }
    }

    /// The index of the "\r\n\r\n" that ends the head.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 0x0D && bytes[i + 1] == 0x0A && bytes[i + 2] == 0x0D && bytes[i + 3] == 0x0A {
            return i
        }
        return nil
    }

    private struct ResponseHead {
        var status: Int
        var contentLength: Int?
        var chunked = false

        init?(_ text: String) {
            let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
            guard let first = lines.first, let status = HookURL.status(ofResponseStart: Array(first.utf8)) else { return nil }
            self.status = status
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmingSpaces
                if name == "content-length" {
                    guard let length = Int(value), length >= 0 else { return nil }
                    contentLength = length
                } else if name == "transfer-encoding", value.lowercased().contains("chunked") {
                    chunked = true
                }
            }
        }
    }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
