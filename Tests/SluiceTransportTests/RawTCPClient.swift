import Foundation
import Glibc
import SluiceWire

/// A blocking TCP client for tests that play a peer by hand (good or bad) against a worker's
/// ICE-TCP listener.
final class RawTCPClient {
    /// -1 once closed. A class init that throws after its properties are set still runs deinit,
    /// so the failure path must not close the descriptor itself: closing it twice would close
    /// whatever socket another test opened meanwhile under the same number.
    private(set) var fd: Int32

    /// `receiveBuffer`: SO_RCVBUF before connecting (small, to make a slow reader).
    init(to address: SocketAddress, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var storage = sockaddr_storage()
        address.write(to: &storage)
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            Glibc.close(fd)
            fd = -1
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Closes now (deinit then does nothing): never `close(client.fd)` from outside, which
    /// left deinit to close the number again after another test's socket had taken it.
    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    var localPort: UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return SocketAddress(&storage)?.port ?? 0
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// `packet` with its RFC 4571 length in front.
    func sendFrame(_ packet: [UInt8]) {
        send([UInt8(packet.count >> 8), UInt8(packet.count & 0xff)] + packet)
    }

    /// Whatever arrives within 200 ms; nil when the peer closed (end of stream or reset).
    func read(max: Int = 65536) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: max)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { return Array(buffer[0..<count]) }
        if count == 0 { return nil }
        return errno == EAGAIN || errno == EWOULDBLOCK ? [] : nil
    }

    /// Waits (up to about 10 s) until the server closes the connection.
    func waitUntilClosed() -> Bool {
        for _ in 0..<50 {
            if read() == nil { return true }
        }
        return false
    }

    /// Reads until nothing has come for 200 ms or the peer closed.
    func readAvailable() -> [UInt8] {
        var all: [UInt8] = []
        while let chunk = read(), !chunk.isEmpty { all += chunk }
        return all
    }
}
