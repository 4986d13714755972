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

@Suite(.serialized) struct HookTransportTests {
    func request(port: Int, timeoutMs: Int) -> HookRequest {
        HookRequest(event: .connect, url: "http://127.0.0.1:\(port)/hooks/connect", body: Array(#"{"a":1}"#.utf8),
                    headers: [("Content-Type", "application/json")], timeoutMs: timeoutMs)
    }

    @Test func aBackendThatNeverAnswersTimesOutOnce() throws {
        let listener = try SilentListener()
        let transport = URLSessionHookTransport()
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

    @Test func aClosedPortFails() throws {
        let port: Int
        do {
            let listener = try SilentListener()
            port = listener.port
        }
        let transport = URLSessionHookTransport()
        let box = OutcomeBox()
        transport.post(request(port: port, timeoutMs: 5000)) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success)
        let outcome = try #require(box.all.first)
        #expect(!outcome.allows)
        if case .status = outcome { Issue.record("a closed port gave an HTTP status: \(outcome)") }
    }

    @Test func postsHeadersAndBodyAndReadsTheStatus() throws {
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
        let transport = URLSessionHookTransport()
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
