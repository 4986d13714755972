import Dispatch
import Foundation
@testable import SluiceSignaling
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The control channel's client reads the whole answer: split across writes, with and
/// without Content-Length; refuses what a Sluice node never sends; and never waits past
/// its timeout.
@Suite(.serialized) struct BlockingHTTPClientTests {
    /// Accepts one connection, reads the request's head, then writes `parts` one by one.
    private func serveOnce(_ listener: SilentListener, parts: [String]) {
        let fd = listener.fd
        Thread {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var data = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: data, as: UTF8.self).contains("\r\n\r\n") {
                let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                data += chunk.prefix(count)
            }
            for part in parts {
                _ = Array(part.utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                usleep(20_000)
            }
        }.start()
    }

    private func exchange(_ parts: [String], timeoutMs: Int = 3000) throws -> BlockingHTTPClient.Outcome {
        let listener = try SilentListener()
        serveOnce(listener, parts: parts)
        return BlockingHTTPClient.exchange(method: "POST", url: "http://127.0.0.1:\(listener.port)/api/v1/cluster/links",
                                           headers: [("Authorization", "Bearer x")], body: Array("{}".utf8), timeoutMs: timeoutMs)
    }

    @Test func readsABodySplitAcrossWrites() throws {
        // Content-Length stops the read: what follows it (here a stray byte) is not body.
        let outcome = try exchange(["HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nconTent-length: 10\r\n",
                                    "\r\n{\"link\"", ":1}", "X"])
        #expect(outcome == .response(status: 200, body: Array("{\"link\":1}".utf8)))
    }

    @Test func readsToTheCloseWithoutContentLength() throws {
        #expect(try exchange(["HTTP/1.1 404 Not Found\r\n\r\n", "{\"error\":1}"]) == .response(status: 404, body: Array("{\"error\":1}".utf8)))
    }

    @Test func refusesWhatANodeNeverSends() throws {
        #expect(try exchange(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"])
                    == .failed("a chunked answer (not expected from a Sluice node)"))
        #expect(try exchange(["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}"]) == .failed("the connection closed inside the answer's body"))
        #expect(try exchange(["SSH-2.0-OpenSSH\r\n\r\n"]) == .failed("not an HTTP answer"))
        #expect(try exchange(["HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\n\r\n"]).isFailure)
        #expect(try exchange([]) == .failed("the connection closed before an answer"))
    }

    @Test func aSilentPeerTimesOut() throws {
        let listener = try SilentListener()
        let outcome = BlockingHTTPClient.exchange(method: "DELETE", url: "http://127.0.0.1:\(listener.port)/x", timeoutMs: 200)
        #expect(outcome == .timedOut)
    }
}

private extension BlockingHTTPClient.Outcome {
    var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}
