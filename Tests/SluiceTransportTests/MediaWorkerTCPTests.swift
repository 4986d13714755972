import Foundation
import Glibc
import SluiceWire
import Synchronization
import SluiceLog
import Testing
@testable import SluiceTransport

/// Stands in for a transport: binds the first path a frame arrives on and counts frames.
private final class PathRecorder: DatagramReceiver, @unchecked Sendable {
    let worker: MediaWorker
    let path = Mutex<MediaPath?>(nil)
    let frames = Mutex<[[UInt8]]>([])
    let closed = Mutex<[MediaPath]>([])

    init(worker: MediaWorker) { self.worker = worker }

    func receive(_ datagram: UnsafeMutableRawBufferPointer, from path: MediaPath, now: UInt64) {
        if self.path.withLock({ $0 }) == nil {
            worker.bind(path, to: self)
            self.path.withLock { $0 = path }
        }
        frames.withLock { $0.append(Array(datagram)) }
    }

    func pathDidClose(_ path: MediaPath) { closed.withLock { $0.append(path) } }
}

/// A binding request whose USERNAME names `ufrag` (what the worker routes an unbound
/// connection's first frame by; the stand-in transport checks nothing more).
private func bindingRequest(ufrag: String) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 256)
    let length = buffer.withUnsafeMutableBytes { raw in
        Array("\(ufrag):peer".utf8).withUnsafeBytes { name in
            STUNMessageWriter.bindingRequest(into: raw, transactionID: .random(), username: name, priority: 1,
                                             tieBreaker: 1, useCandidate: true,
                                             key: STUNIntegrityKey(password: "password-password-1234"))
        }
    }
    return Array(buffer[0..<length!])
}

/// Lines a worker logged.
private final class LogLines: @unchecked Sendable {
    let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    lazy var sink: @Sendable (String) -> Void = { [unowned self] line in self.lines.withLock { $0.append(line) } }
}

private func makeServer(_ options: TCPMediaOptions = TCPMediaOptions(), log: LogLines) throws -> MediaWorker {
    let loopback = SocketAddress(host: "127.0.0.1", port: 0)!
    let worker = try MediaWorker(index: 0, bindAddress: loopback, tcpBindAddress: loopback, tcpOptions: options,
                                 poolCapacity: 512)
    // JSON, so that the tests see the address as its own field too.
    worker.log = Log(level: .info, subsystem: "media", format: .json, sink: log.sink)
    worker.start()
    return worker
}

/// Bad input and slow readers on a worker's ICE-TCP listener, from raw sockets: each closes
/// or costs only its own connection, with one log line, and the worker goes on.
@Suite(.serialized) struct MediaWorkerTCPTests {
    @Test func badInputClosesOnlyItsConnection() throws {
        let log = LogLines()
        let worker = try makeServer(log: log)
        defer { worker.stop() }
        let recorder = PathRecorder(worker: worker)
        try onWorker(worker) { worker.register(ufrag: "good", receiver: recorder) }
        let address = worker.localTCPAddress!

        let good = try RawTCPClient(to: address)
        good.sendFrame(bindingRequest(ufrag: "good"))
        #expect(eventually { recorder.frames.withLock { $0.count } == 1 })

        let garbage = try RawTCPClient(to: address)
        let garbagePort = garbage.localPort
        garbage.sendFrame([0x80, 0x60, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])  // RTP before any ICE check
        let oversize = try RawTCPClient(to: address)
        let oversizePort = oversize.localPort
        oversize.send([0xFF, 0xFF] + [UInt8](repeating: 0, count: 100))  // a 65,535-byte frame announced
        let unknown = try RawTCPClient(to: address)
        unknown.sendFrame(bindingRequest(ufrag: "nobody"))  // STUN for no transport: dropped, not closed

        #expect(garbage.waitUntilClosed())
        #expect(oversize.waitUntilClosed())
        #expect(worker.tcpConnectionsClosedForBadInput == 2)
        #expect(unknown.read() == [])

        // The good connection still carries frames, split across writes.
        let packet: [UInt8] = [0x80, 0x60] + [UInt8](repeating: 0x42, count: 500)
        let frame = [UInt8(packet.count >> 8), UInt8(packet.count & 0xff)] + packet
        good.send(Array(frame[0..<1]))
        usleep(20_000)
        good.send(Array(frame[1..<300]))
        usleep(20_000)
        good.send(Array(frame[300...]) + frame)
        #expect(eventually { recorder.frames.withLock { $0.count } == 3 })
        #expect(recorder.frames.withLock { Array($0.suffix(2)) } == [packet, packet])
        #expect(recorder.path.withLock { $0 }?.isTCP == true)

        let lines = log.all
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.contains { $0.contains(":\(garbagePort):") && $0.contains("not STUN") })
        #expect(lines.contains { $0.contains("\"remote\":\"127.0.0.1:\(garbagePort)\"") })
        #expect(lines.contains { $0.contains(":\(oversizePort):") && $0.contains("65535") })
        #expect(worker.tcpConnectionsOpen == 2)
    }

    @Test func aSilentConnectionIsClosedAfterTheTimeout() throws {
        let log = LogLines()
        let worker = try makeServer(TCPMediaOptions(unauthenticatedTimeoutMicros: 300_000), log: log)
        defer { worker.stop() }
        let recorder = PathRecorder(worker: worker)
        try onWorker(worker) { worker.register(ufrag: "good", receiver: recorder) }
        let bound = try RawTCPClient(to: worker.localTCPAddress!)
        bound.sendFrame(bindingRequest(ufrag: "good"))
        let silent = try RawTCPClient(to: worker.localTCPAddress!)
        #expect(silent.waitUntilClosed())
        #expect(worker.tcpConnectionsClosedForBadInput == 1)
        #expect(log.all.contains { $0.contains("no authenticated ICE check") })
        // The bound one outlives the timeout.
        usleep(600_000)
        #expect(bound.read() == [])
        #expect(worker.tcpConnectionsOpen == 1)
    }

    @Test func connectionsOverTheLimitAreRefused() throws {
        let log = LogLines()
        let worker = try makeServer(TCPMediaOptions(maxConnections: 2), log: log)
        defer { worker.stop() }
        let first = try RawTCPClient(to: worker.localTCPAddress!)
        let second = try RawTCPClient(to: worker.localTCPAddress!)
        #expect(eventually { worker.tcpConnectionsOpen == 2 })
        let third = try RawTCPClient(to: worker.localTCPAddress!)
        let thirdPort = third.localPort  // before the close, which unbinds it
        #expect(third.waitUntilClosed())
        #expect(worker.tcpConnectionsRefused == 1)
        #expect(log.all.contains { $0.contains("refused") && $0.contains(":\(thirdPort):") }, "\(log.all)")
        #expect(first.read() == [] && second.read() == [])
        // A slot freed by a close is used again.
        first.close()
        #expect(eventually { worker.tcpConnectionsOpen == 1 })
        let fourth = try RawTCPClient(to: worker.localTCPAddress!)
        #expect(eventually { worker.tcpConnectionsOpen == 2 })
        #expect(fourth.read() == [])
    }

    /// A reader that does not read: its queue fills and its packets are dropped and counted,
    /// the worker never blocks, another reader gets everything, and what the slow one reads
    /// later is whole frames only, in order.
    @Test func aSlowReaderLosesOnlyItsOwnPackets() throws {
        let log = LogLines()
        let worker = try makeServer(TCPMediaOptions(sendQueueBytes: 16 * 1024, socketSendBufferBytes: 4096), log: log)
        defer { worker.stop() }
        let slowRecorder = PathRecorder(worker: worker), fastRecorder = PathRecorder(worker: worker)
        try onWorker(worker) {
            worker.register(ufrag: "slow", receiver: slowRecorder)
            worker.register(ufrag: "fast", receiver: fastRecorder)
        }
        let slow = try RawTCPClient(to: worker.localTCPAddress!, receiveBuffer: 4096)
        let fast = try RawTCPClient(to: worker.localTCPAddress!)
        slow.sendFrame(bindingRequest(ufrag: "slow"))
        fast.sendFrame(bindingRequest(ufrag: "fast"))
        #expect(eventually { slowRecorder.path.withLock { $0 } != nil && fastRecorder.path.withLock { $0 } != nil })
        let slowPath = slowRecorder.path.withLock { $0 }!, fastPath = fastRecorder.path.withLock { $0 }!

        let total = 2000
        func packet(_ i: Int) -> [UInt8] { [UInt8(i >> 8), UInt8(i & 0xff)] + [UInt8](repeating: UInt8(i & 0x7f), count: 998) }
        var fastBytes: [UInt8] = []
        for chunk in stride(from: 0, to: total, by: 100) {
            try onWorker(worker) {
                for i in chunk..<(chunk + 100) {
                    packet(i).withUnsafeBytes { worker.queueSend(copying: $0, path: slowPath) }
                }
                if chunk % 500 == 0 {
                    packet(chunk).withUnsafeBytes { worker.queueSend(copying: $0, path: fastPath) }
                }
                worker.flushSends()
            }
            fastBytes += fast.readAvailable()
        }
        let dropped = worker.tcpSendDroppedPackets
        #expect(dropped > 0)
        #expect(dropped < UInt64(total))
        #expect(log.all.isEmpty)

        // The fast reader got its four packets whole.
        fastBytes += fast.readAvailable()
        #expect(decodeFrames(fastBytes) == [0, 500, 1000, 1500].map(packet))

        // The slow reader now reads: whole frames, in order, every one not dropped.
        var slowBytes: [UInt8] = []
        while true {
            let chunk = slow.readAvailable()
            if chunk.isEmpty { break }
            slowBytes += chunk
        }
        let frames = decodeFrames(slowBytes)
        #expect(frames.count == total - Int(dropped))
        let numbers = frames.map { Int($0[0]) << 8 | Int($0[1]) }
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count)
        #expect(frames.allSatisfy { $0 == packet(Int($0[0]) << 8 | Int($0[1])) })
    }

    @Test func unregisteringATransportClosesItsConnection() throws {
        let log = LogLines()
        let worker = try makeServer(log: log)
        defer { worker.stop() }
        let recorder = PathRecorder(worker: worker)
        try onWorker(worker) { worker.register(ufrag: "leaving", receiver: recorder) }
        let client = try RawTCPClient(to: worker.localTCPAddress!)
        client.sendFrame(bindingRequest(ufrag: "leaving"))
        #expect(eventually { recorder.path.withLock { $0 } != nil })
        let path = recorder.path.withLock { $0 }!
        try onWorker(worker) {
            [UInt8](repeating: 9, count: 10).withUnsafeBytes { worker.queueSend(copying: $0, path: path) }
            worker.unregister(receiver: recorder)
        }
        // What was queued still went out before the close.
        var bytes: [UInt8] = []
        var closed = false
        for _ in 0..<50 {
            guard let chunk = client.read() else {
                closed = true
                break
            }
            bytes += chunk
        }
        #expect(closed)
        #expect(decodeFrames(bytes) == [[UInt8](repeating: 9, count: 10)])
        #expect(worker.tcpConnectionsOpen == 0)
        #expect(recorder.closed.withLock { $0.isEmpty })  // it asked for the close: no callback
    }
}

/// Splits a received stream into its frames with the worker's own decoder.
private func decodeFrames(_ stream: [UInt8]) -> [[UInt8]] {
    var decoder = RFC4571FrameDecoder(maxFrameLength: 65535)
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 65535, alignment: 1)
    defer { storage.deallocate() }
    var frames: [[UInt8]] = []
    var copy = stream
    copy.withUnsafeMutableBytes { input in
        var offset = 0
        while case .frame(let frame) = decoder.nextFrame(in: input, offset: &offset, storage: storage) {
            frames.append(Array(frame))
        }
    }
    #expect(!decoder.isMidFrame, "the stream ends inside a frame")
    return frames
}
