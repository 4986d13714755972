import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking TCP connection of one hook POST, every wait bounded by the request's
/// deadline (nanoseconds of `DispatchTime.now().uptimeNanoseconds`). Closed on deinit.
final class HookSocket {
    enum Step: Equatable { case done, timedOut, failed(String) }
    enum Received: Equatable { case bytes(Int), closed, timedOut, failed(String) }

    let fd: Int32
    let deadline: UInt64

    private init(fd: Int32, deadline: UInt64) {
        self.fd = fd
        self.deadline = deadline
    }

    deinit { close(fd) }

    var pastDeadline: Bool { DispatchTime.now().uptimeNanoseconds >= deadline }

    /// Connects to the first address of `host` that answers; nil when none did in time.
    static func connect(host: String, port: Int, deadline: UInt64) -> HookSocket? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                                | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            let connection = HookSocket(fd: fd, deadline: deadline)
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return connection }
            if errno == EINPROGRESS, connection.wait(Int16(POLLOUT)) {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 { return connection }
            }
            if connection.pastDeadline { return nil }
        }
        return nil
    }

    /// Waits for `events` until the deadline; false when it passed.
    func wait(_ events: Int16) -> Bool {
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

    /// Sends every byte (MSG_NOSIGNAL: a peer that closed gives an error, not SIGPIPE).
    func sendAll(_ bytes: UnsafeRawBufferPointer) -> Step {
        var offset = 0
        while offset < bytes.count {
            guard wait(Int16(POLLOUT)) else { return .timedOut }
            let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
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

    /// Waits for and reads what has arrived, up to `buffer.count` bytes.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Received {
        while true {
            guard wait(Int16(POLLIN)) else { return .timedOut }
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            if errno == EAGAIN || errno == EINTR { continue }
            return .failed("the connection broke while receiving")
        }
    }
}
