import Foundation
import Glibc
import SluiceWire
import Synchronization
import Testing
@testable import SluiceTransport

/// Counts what a transport delivers, from the worker thread.
private final class Counter: WebRTCTransportDelegate, @unchecked Sendable {
    private let connectedFlag = Atomic<Bool>(false)
    var connected: Bool { connectedFlag.load(ordering: .acquiring) }
    let rtp = Mutex<[[UInt8]]>([])

    func transportDidConnect(_ transport: WebRTCTransport) { connectedFlag.store(true, ordering: .releasing) }
    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) {}
    func transport(_ transport: WebRTCTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer, now: UInt64) {
        rtp.withLock { $0.append(Array(packet)) }
    }
    func transport(_ transport: WebRTCTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer, now: UInt64) {}
}

/// True when a fresh UDP socket can bind `address` (nobody holds the port).
private func portIsFree(_ address: SocketAddress) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var storage = sockaddr_storage()
    address.write(to: &storage)
    return withUnsafePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}

/// Several client transports on one worker, each on a socket of its own, all talking to the
/// same server address: the worker tells them apart by the local socket.
@Suite(.serialized) struct MediaWorkerSocketTests {
    @Test func clientTransportsShareAWorkerThroughTheirOwnSockets() throws {
        let loopback = SocketAddress(host: "127.0.0.1", port: 0)!
        let serverWorker = try MediaWorker(index: 0, bindAddress: loopback, poolCapacity: 256)
        let clientWorker = try MediaWorker(index: 1, bindAddress: loopback, poolCapacity: 256)
        serverWorker.start()
        clientWorker.start()
        defer {
            serverWorker.stop()
            clientWorker.stop()
        }
        let serverSecurity = try DTLSSecurity.make()
        let clientSecurity = try DTLSSecurity.make()
        let count = 3
        let sockets = try (0..<count).map { _ in try clientWorker.openSocket(bindAddress: loopback) }
        #expect(Set(sockets.map(\.localAddress)).count == count)
        #expect(!sockets.contains { $0.localAddress == clientWorker.localAddress })

        var servers: [WebRTCTransport] = []
        var clients: [WebRTCTransport] = []
        let serverCounters = (0..<count).map { _ in Counter() }
        let clientCounters = (0..<count).map { _ in Counter() }
        for i in 0..<count {
            servers.append(try onWorker(serverWorker) {
                let t = try WebRTCTransport(worker: serverWorker, security: serverSecurity, parameters: TransportParameters(
                    localUfrag: "srv\(i)", localPassword: "server-password-0123456789",
                    remoteUfrag: "cli\(i)", remotePassword: "client-password-0123456789",
                    remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: clientSecurity.fingerprint,
                    dtlsRole: .server, consentTimeoutMicros: 10_000_000))
                t.delegate = serverCounters[i]
                return t
            })
            clients.append(try onWorker(clientWorker) {
                let t = try WebRTCTransport(worker: clientWorker, socket: sockets[i], security: clientSecurity,
                                            parameters: TransportParameters(
                    localUfrag: "cli\(i)", localPassword: "client-password-0123456789",
                    remoteUfrag: "srv\(i)", remotePassword: "server-password-0123456789",
                    remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: serverSecurity.fingerprint,
                    dtlsRole: .client, consentTimeoutMicros: 10_000_000, remoteCandidate: serverWorker.localAddress))
                t.delegate = clientCounters[i]
                return t
            })
        }
        #expect(eventually { (serverCounters + clientCounters).allSatisfy(\.connected) })

        // Server transport i sends one packet whose SSRC and payload name i; only client i may get it.
        for i in 0..<count {
            let packet: [UInt8] = [0x80, 96, 0, UInt8(i), 0, 0, 0, 1, 0, 0, 0, UInt8(i + 1)] + [UInt8](repeating: UInt8(i), count: 40)
            try onWorker(serverWorker) {
                let buffer = serverWorker.pool.take()!
                serverWorker.pool.pointer(buffer).copyMemory(from: packet, byteCount: packet.count)
                servers[i].sendRTP(buffer: buffer, length: packet.count)
            }
            try onWorker(clientWorker) {
                let buffer = clientWorker.pool.take()!
                clientWorker.pool.pointer(buffer).copyMemory(from: packet, byteCount: packet.count)
                clients[i].sendRTP(buffer: buffer, length: packet.count)
            }
        }
        #expect(eventually { clientCounters.allSatisfy { $0.rtp.withLock { $0.count } == 1 } })
        #expect(eventually { serverCounters.allSatisfy { $0.rtp.withLock { $0.count } == 1 } })
        for i in 0..<count {
            #expect(clientCounters[i].rtp.withLock { $0.first?[11] } == UInt8(i + 1))
            #expect(serverCounters[i].rtp.withLock { $0.first?[11] } == UInt8(i + 1))
        }

        // Closing a socket releases its port and its routes; the other connections go on.
        try onWorker(clientWorker) {
            clients[0].close()
            clientWorker.closeSocket(sockets[0])
        }
        #expect(portIsFree(sockets[0].localAddress))
        #expect(!portIsFree(sockets[1].localAddress))
        let again: [UInt8] = [0x80, 96, 0, 9, 0, 0, 0, 2, 0, 0, 0, 2] + [UInt8](repeating: 7, count: 40)
        try onWorker(serverWorker) {
            let buffer = serverWorker.pool.take()!
            serverWorker.pool.pointer(buffer).copyMemory(from: again, byteCount: again.count)
            servers[1].sendRTP(buffer: buffer, length: again.count)
        }
        #expect(eventually { clientCounters[1].rtp.withLock { $0.count } == 2 })

        try onWorker(serverWorker) { servers.forEach { $0.close() } }
        try onWorker(clientWorker) {
            for i in 1..<count {
                clients[i].close()
                clientWorker.closeSocket(sockets[i])
            }
        }
    }

    @Test func closingThePrimarySocketIsRefused() throws {
        let worker = try MediaWorker(index: 0, bindAddress: SocketAddress(host: "127.0.0.1", port: 0)!, poolCapacity: 64)
        worker.closeSocket(worker.primarySocket)
        #expect(!portIsFree(worker.localAddress))
    }
}
