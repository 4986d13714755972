import Dispatch
import Foundation
@testable import SluiceSignaling
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on 127.0.0.1 that accepts nothing: connections complete in the backlog
/// and never get an answer, like a backend that hangs.
final class SilentListener {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        try #require(bound && port > 0)
    }

    deinit { close(fd) }
}

final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [HookOutcome] = []
    let done = DispatchSemaphore(value: 0)
    func add(_ outcome: HookOutcome) { lock.lock(); outcomes.append(outcome); lock.unlock(); done.signal() }
    var all: [HookOutcome] { lock.lock(); defer { lock.unlock() }; return outcomes }
}

/// Both transports: Sluice's own socket client (http://) and URLSession (https://, tested here
/// over http://).
enum TransportKind: String, CaseIterable, CustomTestStringConvertible {
    case socket, urlSession
    var testDescription: String { rawValue }
    func make() -> HookTransport { self == .socket ? SocketHookTransport() : URLSessionHookTransport() }
}

@Suite(.serialized) struct HookTransportTests {
    func request(port: Int, timeoutMs: Int) -> HookRequest {
        HookRequest(event: .connect, url: "http://127.0.0.1:\(port)/hooks/connect", body: Array(#"{"a":1}"#.utf8),
                    headers: [("Content-Type", "application/json")], timeoutMs: timeoutMs)
    }

    @Test(arguments: TransportKind.allCases)
    func aBackendThatNeverAnswersTimesOutOnce(_ kind: TransportKind) throws {
        let listener = try SilentListener()
        let transport = kind.make()
        let box = OutcomeBox()
        let started = DispatchTime.now().uptimeNanoseconds
        transport.post(request(port: listener.port, timeoutMs: 200)) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success, "no outcome at all")
        // Never before the deadline (a lower bound only: no upper bound on a busy machine).
        #expect(DispatchTime.now().uptimeNanoseconds - started >= 190_000_000)
        // Exactly one outcome, even after the transfer itself gives up.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(box.all == [.timedOut])
    }

    @Test(arguments: TransportKind.allCases)
    func aClosedPortFails(_ kind: TransportKind) throws {
        let port: Int
        do {
            let listener = try SilentListener()
            port = listener.port
        }
        let transport = kind.make()
        let box = OutcomeBox()
        transport.post(request(port: port, timeoutMs: 5000)) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success)
        let outcome = try #require(box.all.first)
        #expect(!outcome.allows)
        if case .status = outcome { Issue.record("a closed port gave an HTTP status: \(outcome)") }
    }

    @Test(arguments: TransportKind.allCases)
    func postsHeadersAndBodyAndReadsTheStatus(_ kind: TransportKind) throws {
        let listener = try SilentListener()
        let received = LockedLines()
        let fd = listener.fd
        // One-shot backend: reads the request up to its body, answers 403.
        let backend = Thread {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var data = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: data, as: UTF8.self).hasSuffix(#"{"a":1}"#) {
                let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                data += chunk.prefix(count)
            }
            received.append(String(decoding: data, as: UTF8.self))
            let reply = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        }
        backend.start()
        let transport = kind.make()
        let box = OutcomeBox()
        var signed = request(port: listener.port, timeoutMs: 5000)
        signed.headers.insert((HookSignature.headerName, HookSignature.header(secret: "k", body: signed.body)), at: 0)
        transport.post(signed) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success)
        #expect(box.all == [.status(403)])
        let text = try #require(received.all.first)
        #expect(text.hasPrefix("POST /hooks/connect HTTP/1.1\r\n"))
        #expect(text.lowercased().contains("x-sluice-signature: \(HookSignature.header(secret: "k", body: signed.body))"))
        #expect(text.lowercased().contains("content-type: application/json"))
        #expect(text.hasSuffix("\r\n\r\n" + #"{"a":1}"#))
    }
}

struct HookURLTests {
    @Test func readsHostPortAndPath() {
        #expect(HookURL("http://127.0.0.1:8090/hooks/connect") ==
                HookURL(host: "127.0.0.1", port: 8090, path: "/hooks/connect", authority: "127.0.0.1:8090"))
        #expect(HookURL("HTTP://backend") == HookURL(host: "backend", port: 80, path: "/", authority: "backend"))
        #expect(HookURL("http://[::1]:81/a?b=c") == HookURL(host: "::1", port: 81, path: "/a?b=c", authority: "[::1]:81"))
    }

    @Test(arguments: ["https://a/b", "http://", "http:///x", "http://a:0/", "http://a:70000/", "http://a:x/",
                      "http://u:p@a/", "http://[::1/", "http://[::1]x/", "http://a/b c"])
    func refuses(_ url: String) {
        #expect(HookURL(url) == nil)
    }

    @Test func readsTheStatusLine() {
        #expect(HookURL.status(ofResponseStart: Array("HTTP/1.1 204 No Content\r\n".utf8)) == 204)
        #expect(HookURL.status(ofResponseStart: Array("HTTP/1.0 500\r\n".utf8)) == 500)
        #expect(HookURL.status(ofResponseStart: Array("SSH-2.0-x\r\n".utf8)) == nil)
        #expect(HookURL.status(ofResponseStart: Array("HTTP/1.1 2000 x\r\n".utf8)) == nil)
    }
}
