#if canImport(SluiceTransport)
import Foundation
import SluiceTransport
import SluiceWire
import Synchronization

/// A few media threads shared by many `PeerConnection`s (a load tester, a client with many
/// streams): pass `next()` and `security` to `PeerConnection.init`. Each connection then opens
/// a UDP socket of its own on its worker, so a hundred connections cost a hundred sockets but
/// only `count` threads.
///
/// Close every connection before `stop()`.
public final class MediaWorkerPool: Sendable {
    public let workers: [MediaWorker]
    /// One DTLS certificate for all the pool's connections: a key per connection costs more.
    public let security: DTLSSecurity
    /// The index of the worker `next()` gives; any thread may ask.
    private let nextIndex = Mutex(0)

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
        nextIndex.withLock { index in
            let worker = workers[index]
            index = (index + 1) % workers.count
            return worker
        }
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
                value.micros.store(MediaWorker.threadCPUMicros(), ordering: .relaxed)
                done.signal()
            }
            if done.wait(timeout: .now() + 5) == .success { total += value.micros.load(ordering: .relaxed) }
        }
        return total
    }
}

/// A worker's reading, handed back through the semaphore (which orders the store before the
/// load); atomic because a reading that comes after the wait gave up still writes it.
private final class CPUReading: Sendable {
    let micros = Atomic<UInt64>(0)
}
#endif
