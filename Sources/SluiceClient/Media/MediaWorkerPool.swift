#if canImport(SluiceTransport)
import Foundation
import SluiceTransport
import SluiceWire

/// A few media threads shared by many `PeerConnection`s (a load tester, a client with many
/// streams): pass `next()` and `security` to `PeerConnection.init`. Each connection then opens
/// a UDP socket of its own on its worker, so a hundred connections cost a hundred sockets but
/// only `count` threads.
///
/// Close every connection before `stop()`.
public final class MediaWorkerPool: @unchecked Sendable {
    public let workers: [MediaWorker]
    /// One DTLS certificate for all the pool's connections: a key per connection costs more.
    public let security: DTLSSecurity
    private let cursor = NSLock()
    private var nextIndex = 0

    /// `count` workers bound to `bindAddress` (their primary sockets stay unused), each with
    /// `poolCapacity` packet buffers.
    public init(count: Int, bindAddress: String = "127.0.0.1", poolCapacity: Int = 16384) throws {
        guard count >= 1 else { throw PeerConnectionError.transport("a worker pool needs at least one worker") }
        guard let bind = SocketAddress(host: bindAddress, port: 0) else {
            throw PeerConnectionError.transport("bad bind address \(bindAddress)")
        }
        var made: [MediaWorker] = []
        for i in 0..<count {
            do {
                // A client worker may carry thousands of ICE-TCP connections (a load tester).
                made.append(try MediaWorker(index: i, bindAddress: bind, tcpOptions: TCPMediaOptions(maxConnections: 16_384),
                                            poolCapacity: poolCapacity))
            } catch {
                throw PeerConnectionError.transport("\(error)")
            }
        }
        workers = made
        security = try DTLSSecurity.make()
        for worker in workers { worker.start() }
    }

    /// The worker for the next connection, round robin.
    public func next() -> MediaWorker {
        cursor.lock()
        defer { cursor.unlock() }
        let worker = workers[nextIndex]
        nextIndex = (nextIndex + 1) % workers.count
        return worker
    }

    /// Stops the threads (idempotent).
    public func stop() {
        for worker in workers { worker.stop() }
    }

    /// CPU time the pool's threads have used, in µs (waits for each worker's loop).
    public func cpuMicros() -> UInt64 {
        var total: UInt64 = 0
        for worker in workers {
            let done = DispatchSemaphore(value: 0)
            let value = CPUReading()
            worker.execute {
                value.micros = MediaWorker.threadCPUMicros()
                done.signal()
            }
            if done.wait(timeout: .now() + 5) == .success { total += value.micros }
        }
        return total
    }
}

private final class CPUReading: @unchecked Sendable {
    var micros: UInt64 = 0
}
#endif
