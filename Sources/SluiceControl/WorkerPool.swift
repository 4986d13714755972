import Dispatch
import SluiceMedia
import SluiceSDP
import SluiceTransport
import SluiceVocabulary
import SluiceWire
import Synchronization

/// The media workers and the streams on each, as the control thread reaches them: which
/// worker a stream or a new handle goes to, the candidates an answer names, and commands run
/// on a worker's own thread (`run(on:)`), where everything of `WorkerStreams` lives.
final class WorkerPool {
    let workers: [MediaWorker]
    /// `media[i]` is worker i's; touched only from commands run on that worker.
    let media: [WorkerStreams]
    /// Filled by the workers from their threads; read by the registry on the control thread.
    let statsBoard = StatsBoard()
    private let announcedAddresses: [String]

    /// Binds every worker's sockets; no thread runs until `start`.
    init(config: MediaEngineConfig, security: DTLSSecurity) throws {
        announcedAddresses = config.announcedAddresses
        var workers: [MediaWorker] = []
        for i in 0..<max(1, config.workers) {
            let port = config.basePort == 0 ? 0 : config.basePort + UInt16(i)
            let address = SocketAddress(host: config.bindAddress.host, port: port) ?? config.bindAddress
            let tcpAddress = config.tcpBasePort.map { base in
                SocketAddress(host: config.bindAddress.host, port: base == 0 ? 0 : base + UInt16(i)) ?? config.bindAddress
            }
            let worker = try MediaWorker(index: i, bindAddress: address, tcpBindAddress: tcpAddress,
                                         tcpOptions: config.tcpOptions)
            worker.log = config.workerLog
            worker.segmentation = config.udpSegmentation
            workers.append(worker)
        }
        self.workers = workers
        media = workers.map { WorkerStreams(worker: $0, security: security) }
        WorkerStreams.link(media)
        for streams in media {
            streams.statsBoard = statsBoard
            streams.rtpTimeoutMicros = UInt64(max(0, config.rtpTimeoutSeconds)) * 1_000_000
        }
    }

    /// Starts the worker threads; `report` gets their events, on their threads.
    func start(report: @escaping (WorkerEvent) -> Void) {
        for streams in media { streams.report = report }
        for worker in workers { worker.start() }
    }

    func stop() {
        for worker in workers { worker.stop() }
        // A worker stopped before another may miss that one's last commands to it (a
        // relaying worker telling the home it stopped relaying): drop what is left now that no
        // worker thread runs.
        for streams in media { streams.teardown() }
    }

    /// Runs `command` on worker `index`'s thread, after what was sent to it before.
    func run(on index: Int, _ command: @escaping (WorkerStreams) -> Void) {
        let streams = media[index]
        workers[index].execute { command(streams) }
    }

    /// A stream's home: the worker its publisher is on, chosen from its name, so that the
    /// workers of players waiting for a name know where the publisher who comes later will be.
    func home(of stream: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in stream.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(workers.count))
    }

    /// Where a new player or pre-call test goes: the worker with the fewest handles (the first
    /// of those tied), given the worker of every handle. Its worker relays the stream from the
    /// home when they differ (docs/design.md "One stream on every worker").
    func leastLoaded(handlesOn busy: [Int]) -> Int {
        guard workers.count > 1 else { return 0 }
        var load = [Int](repeating: 0, count: workers.count)
        for worker in busy { load[worker] += 1 }
        return load.indices.min { load[$0] < load[$1] } ?? 0
    }

    /// Every announced address as a UDP host candidate, then (ICE-TCP on) as a passive TCP one.
    func candidates(worker: Int) -> [ServerCandidate] {
        let port = Int(workers[worker].localAddress.port)
        var result = announcedAddresses.map { ServerCandidate(ip: $0, port: port) }
        if let tcpPort = workers[worker].localTCPAddress?.port {
            result += announcedAddresses.map { ServerCandidate(ip: $0, port: Int(tcpPort), transport: "tcp") }
        }
        return result
    }

    /// What every worker's relay links sent (any thread): the total, links since closed
    /// included, and each live link's count by handle.
    var linkPackets: (total: UInt64, live: [StreamHandle: UInt64]) {
        var total: UInt64 = 0
        var live: [StreamHandle: UInt64] = [:]
        for streams in media {
            let read = streams.linkPackets.read()
            total &+= read.total
            live.merge(read.live) { a, _ in a }
        }
        return (total, live)
    }

    /// Each worker's tables, read on its own thread and summed. Waits up to `timeout` seconds
    /// for each (a worker that does not answer counts in `workers.unanswered`), so it is for
    /// tests and the admin API, never a hot path.
    func tableSizes(timeout: Double) -> [String: Int] {
        var sizes: [String: Int] = [:]
        for index in media.indices {
            let answer = Mutex<[String: Int]?>(nil)
            let done = DispatchSemaphore(value: 0)
            run(on: index) { streams in
                let counted = streams.tableSizes
                answer.withLock { $0 = counted }
                done.signal()
            }
            _ = done.wait(timeout: .now() + timeout)
            guard let counted = answer.withLock({ $0 }) else {
                sizes["workers.unanswered", default: 0] += 1
                continue
            }
            // Summed over the workers: a table is idle when every worker's is.
            for (name, size) in counted { sizes[name, default: 0] += size }
        }
        return sizes
    }
}
