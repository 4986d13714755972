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

/// Both paths of Sluice's own hook client: plain HTTP and HTTPS (OpenSSL over the same socket).
enum HookScheme: String, CaseIterable, CustomTestStringConvertible {
    case http, https
    var testDescription: String { rawValue }
}

@Suite(.serialized) struct HookTransportTests {
    func request(_ scheme: HookScheme = .http, host: String = "127.0.0.1", port: Int, timeoutMs: Int,
                 caFile: String? = nil) -> HookRequest {
        HookRequest(event: .connect, url: "\(scheme.rawValue)://\(host):\(port)/hooks/connect", body: Array(#"{"a":1}"#.utf8),
                    headers: [("Content-Type", "application/json")], timeoutMs: timeoutMs, caFile: caFile)
    }

    @Test(arguments: HookScheme.allCases)
    func aBackendThatNeverAnswersTimesOutOnce(_ scheme: HookScheme) throws {
        // Over https the TLS handshake is what never gets an answer.
        let listener = try SilentListener()
        let transport = SocketHookTransport()
        let box = OutcomeBox()
        let started = DispatchTime.now().uptimeNanoseconds
        transport.post(request(scheme, port: listener.port, timeoutMs: 200)) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success, "no outcome at all")
        // Never before the deadline (a lower bound only: no upper bound on a busy machine).
        #expect(DispatchTime.now().uptimeNanoseconds - started >= 190_000_000)
        // Exactly one outcome, even after the transfer itself gives up.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(box.all == [.timedOut])
    }

    @Test(arguments: HookScheme.allCases)
    func aClosedPortFails(_ scheme: HookScheme) throws {
        let port: Int
        do {
            let listener = try SilentListener()
            port = listener.port
        }
        let transport = SocketHookTransport()
        let box = OutcomeBox()
        transport.post(request(scheme, port: port, timeoutMs: 5000)) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success)
        let outcome = try #require(box.all.first)
        #expect(!outcome.allows)
        if case .status = outcome { Issue.record("a closed port gave an HTTP status: \(outcome)") }
    }

    @Test(arguments: HookScheme.allCases)
    func postsHeadersAndBodyAndReadsTheStatus(_ scheme: HookScheme) throws {
        let listener = try SilentListener()
        let received: LockedLines
        var caFile: String?
        var certificates: TestCertificates?
        switch scheme {
        case .http:
            received = LockedLines()
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
        case .https:
            let made = try TestCertificates()
            try made.certificateAuthority("ca")
            try made.leaf("backend", san: "IP:127.0.0.1", issuer: "ca")
            let backend = try TestTLSBackend(certificate: made.path("backend.pem"), key: made.path("backend.key"))
            received = backend.received
            _ = backend.serveOnce(on: listener, bodyEnd: #"{"a":1}"#,
                                  reply: "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            caFile = made.path("ca.pem")
            certificates = made
        }
        let transport = SocketHookTransport()
        let box = OutcomeBox()
        var signed = request(scheme, port: listener.port, timeoutMs: 5000, caFile: caFile)
        signed.headers.insert((HookSignature.headerName, HookSignature.header(secret: "k", body: signed.body)), at: 0)
        transport.post(signed) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success)
        #expect(box.all == [.status(403)])
        let text = try #require(received.all.first)
        #expect(text.hasPrefix("POST /hooks/connect HTTP/1.1\r\n"))
        #expect(text.lowercased().contains("x-sluice-signature: \(HookSignature.header(secret: "k", body: signed.body))"))
        #expect(text.lowercased().contains("content-type: application/json"))
        #expect(text.hasSuffix("\r\n\r\n" + #"{"a":1}"#))
        _ = certificates
    }
}

/// The HTTPS client verifies the backend: the chain against the CA store, and the name.
@Suite(.serialized) struct HookTLSVerificationTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates()
        try certificates.certificateAuthority("ca")
        try certificates.certificateAuthority("otherCA")
        try certificates.leaf("backend", san: "IP:127.0.0.1,DNS:hooks.test", issuer: "ca")
    }

    /// One POST to a TLS backend serving `backend`; the outcome and what the backend saw.
    func post(host: String = "127.0.0.1", caFile: String?) throws -> (HookOutcome, TestTLSBackend) {
        let listener = try SilentListener()
        let backend = try TestTLSBackend(certificate: certificates.path("backend.pem"), key: certificates.path("backend.key"))
        let thread = backend.serveOnce(on: listener, bodyEnd: #"{"a":1}"#, reply: "HTTP/1.1 204 No Content\r\n\r\n")
        let box = OutcomeBox()
        let request = HookRequest(event: .connect, url: "https://\(host):\(listener.port)/hooks/connect",
                                  body: Array(#"{"a":1}"#.utf8), headers: [], timeoutMs: 5000, caFile: caFile)
        SocketHookTransport().post(request) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success)
        let until = Date().addingTimeInterval(10)
        while thread.isExecuting && Date() < until { Thread.sleep(forTimeInterval: 0.01) }
        return (try #require(box.all.first), backend)
    }

    @Test func theRightCAIsAccepted() throws {
        let (outcome, backend) = try post(caFile: certificates.path("ca.pem"))
        #expect(outcome == .status(204))
        #expect(backend.received.all.count == 1)
    }

    /// The control: the same backend is refused by the system's store and by another CA, so
    /// the accepted case above needed the CA file.
    @Test(arguments: [nil, "otherCA.pem"])
    func anUnknownIssuerIsRefused(_ caName: String?) throws {
        let (outcome, backend) = try post(caFile: caName.map { certificates.path($0) })
        guard case .failed(let why) = outcome else {
            Issue.record("a backend signed by an unknown CA gave \(outcome)")
            return
        }
        #expect(why.contains("certificate"), "\(why)")
        #expect(backend.received.all.isEmpty, "the body went to an unverified backend")
    }

    @Test func aNameTheCertificateDoesNotCarryIsRefused() throws {
        // "localhost" resolves to 127.0.0.1 (and ::1), but the certificate names only
        // 127.0.0.1 and hooks.test.
        let (outcome, backend) = try post(host: "localhost", caFile: certificates.path("ca.pem"))
        guard case .failed(let why) = outcome else {
            Issue.record("a certificate for another name gave \(outcome)")
            return
        }
        #expect(why.lowercased().contains("hostname mismatch"), "\(why)")
        #expect(backend.received.all.isEmpty)
    }

    @Test func aCAFileThatIsNoCertificateIsACleanFailure() throws {
        try certificates.write("not a certificate\n", to: "garbage.pem")
        #expect(HookSettings.problem(withCAFile: certificates.path("garbage.pem")) != nil)
        #expect(HookSettings.problem(withCAFile: certificates.path("missing.pem"))?.contains("missing.pem") == true)
        #expect(HookSettings.problem(withCAFile: certificates.path("ca.pem")) == nil)
        let request = HookRequest(event: .connect, url: "https://127.0.0.1:9/x", body: [], headers: [], timeoutMs: 1000,
                                  caFile: certificates.path("garbage.pem"))
        let box = OutcomeBox()
        SocketHookTransport().post(request) { box.add($0) }
        #expect(box.done.wait(timeout: .now() + 20) == .success)
        guard case .failed = try #require(box.all.first) else {
            Issue.record("a garbage CA file gave \(box.all)")
            return
        }
    }
}

struct HookURLTests {
    @Test func readsHostPortAndPath() {
        #expect(HookURL("http://127.0.0.1:8090/hooks/connect") ==
                HookURL(host: "127.0.0.1", port: 8090, path: "/hooks/connect", authority: "127.0.0.1:8090"))
        #expect(HookURL("HTTP://backend") == HookURL(host: "backend", port: 80, path: "/", authority: "backend"))
        #expect(HookURL("http://[::1]:81/a?b=c") == HookURL(host: "::1", port: 81, path: "/a?b=c", authority: "[::1]:81"))
    }

    @Test func readsHTTPS() {
        #expect(HookURL("https://hooks.example/sluice") ==
                HookURL(isSecure: true, host: "hooks.example", port: 443, path: "/sluice", authority: "hooks.example"))
        #expect(HookURL("HTTPS://[::1]:8443") == HookURL(isSecure: true, host: "::1", port: 8443, path: "/", authority: "[::1]:8443"))
    }

    @Test(arguments: ["ftp://a/b", "https://", "http://", "http:///x", "http://a:0/", "http://a:70000/", "http://a:x/",
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
