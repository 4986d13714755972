import Foundation
import SluiceWire
import Synchronization
import Testing
@testable import SluiceTransport

/// Records what a transport tells its owner, from the worker thread.
private final class Recorder: WebRTCTransportDelegate, @unchecked Sendable {
    private let connectedFlag = Atomic<Bool>(false)
    var connected: Bool { connectedFlag.load(ordering: .acquiring) }
    let failure = Mutex<TransportFailure?>(nil)
    let rtp = Mutex<[[UInt8]]>([])
    let rtcp = Mutex<[[UInt8]]>([])

    func transportDidConnect(_ transport: WebRTCTransport) { connectedFlag.store(true, ordering: .releasing) }
    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) { self.failure.withLock { $0 = failure } }
    func transport(_ transport: WebRTCTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer, now: UInt64) {
        rtp.withLock { $0.append(Array(packet)) }
    }
    func transport(_ transport: WebRTCTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer, now: UInt64) {
        rtcp.withLock { $0.append(Array(packet)) }
    }
}

/// The server role (ICE-lite, DTLS passive) against the client role (ICE controlling, DTLS
/// active), each on its own worker and UDP socket on 127.0.0.1: ICE, DTLS and SRTP over real
/// sockets, then RTP and RTCP both ways.
@Suite(.serialized) struct WebRTCTransportLoopbackTests {
    @Test func clientAndServerRolesConnectAndExchangeSRTP() throws {
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
        let serverRecorder = Recorder(), clientRecorder = Recorder()

        let server = try onWorker(serverWorker) {
            let t = try WebRTCTransport(worker: serverWorker, security: serverSecurity, parameters: TransportParameters(
                localUfrag: "srvufrag", localPassword: "server-password-0123456789",
                remoteUfrag: "cliufrag", remotePassword: "client-password-0123456789",
                remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: clientSecurity.fingerprint,
                dtlsRole: .server, consentTimeoutMicros: 10_000_000))
            t.delegate = serverRecorder
            return t
        }
        let client = try onWorker(clientWorker) {
            let t = try WebRTCTransport(worker: clientWorker, security: clientSecurity, parameters: TransportParameters(
                localUfrag: "cliufrag", localPassword: "client-password-0123456789",
                remoteUfrag: "srvufrag", remotePassword: "server-password-0123456789",
                remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: serverSecurity.fingerprint,
                dtlsRole: .client, consentTimeoutMicros: 10_000_000, remoteCandidate: serverWorker.localAddress))
            t.delegate = clientRecorder
            return t
        }

        #expect(eventually { serverRecorder.connected && clientRecorder.connected })
        #expect(serverRecorder.failure.withLock { $0 } == nil)
        #expect(clientRecorder.failure.withLock { $0 } == nil)

        // RTP client -> server: version 2, PT 96, seq 7, ts 1000, ssrc 0x01020304, 100-byte payload.
        let payload = (0..<100).map { UInt8($0) }
        let packet: [UInt8] = [0x80, 96, 0, 7, 0, 0, 0x03, 0xe8, 1, 2, 3, 4] + payload
        try onWorker(clientWorker) {
            let buffer = clientWorker.pool.take()!
            clientWorker.pool.pointer(buffer).copyMemory(from: packet, byteCount: packet.count)
            client.sendRTP(buffer: buffer, length: packet.count)
        }
        #expect(eventually { serverRecorder.rtp.withLock { $0.count } == 1 })
        #expect(serverRecorder.rtp.withLock { $0.first } == packet)

        // RTCP server -> client: a PLI (PT 206, FMT 1).
        let pli: [UInt8] = [0x81, 206, 0, 2, 0, 0, 0, 9, 1, 2, 3, 4]
        try onWorker(serverWorker) { pli.withUnsafeBytes { server.sendRTCP($0) } }
        #expect(eventually { clientRecorder.rtcp.withLock { $0.count } == 1 })
        #expect(clientRecorder.rtcp.withLock { $0.first } == pli)

        try onWorker(serverWorker) { server.close() }
        try onWorker(clientWorker) { client.close() }
    }

    /// The same over ICE-TCP: the client role connects to the server worker's listener and
    /// ICE, DTLS and SRTP run over RFC 4571 frames; no datagram reaches the server.
    @Test func clientAndServerRolesConnectOverTCP() throws {
        let loopback = SocketAddress(host: "127.0.0.1", port: 0)!
        let serverWorker = try MediaWorker(index: 0, bindAddress: loopback, tcpBindAddress: loopback, poolCapacity: 256)
        let clientWorker = try MediaWorker(index: 1, bindAddress: loopback, poolCapacity: 256)
        serverWorker.start()
        clientWorker.start()
        defer {
            serverWorker.stop()
            clientWorker.stop()
        }
        let serverSecurity = try DTLSSecurity.make()
        let clientSecurity = try DTLSSecurity.make()
        let serverRecorder = Recorder(), clientRecorder = Recorder()
        let server = try onWorker(serverWorker) {
            let t = try WebRTCTransport(worker: serverWorker, security: serverSecurity, parameters: TransportParameters(
                localUfrag: "srvtcp", localPassword: "server-password-0123456789",
                remoteUfrag: "clitcp", remotePassword: "client-password-0123456789",
                remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: clientSecurity.fingerprint,
                dtlsRole: .server, consentTimeoutMicros: 10_000_000))
            t.delegate = serverRecorder
            return t
        }
        let client = try onWorker(clientWorker) {
            let t = try WebRTCTransport(worker: clientWorker, security: clientSecurity, parameters: TransportParameters(
                localUfrag: "clitcp", localPassword: "client-password-0123456789",
                remoteUfrag: "srvtcp", remotePassword: "server-password-0123456789",
                remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: serverSecurity.fingerprint,
                dtlsRole: .client, consentTimeoutMicros: 10_000_000,
                remoteCandidate: serverWorker.localTCPAddress!, remoteCandidateIsTCP: true))
            t.delegate = clientRecorder
            return t
        }
        #expect(eventually { serverRecorder.connected && clientRecorder.connected })

        let packet: [UInt8] = [0x80, 96, 0, 9, 0, 0, 0x03, 0xe8, 1, 2, 3, 4] + (0..<1000).map { UInt8($0 & 0xff) }
        try onWorker(clientWorker) {
            for _ in 0..<3 {
                let buffer = clientWorker.pool.take()!
                clientWorker.pool.pointer(buffer).copyMemory(from: packet, byteCount: packet.count)
                client.sendRTP(buffer: buffer, length: packet.count)
            }
        }
        // SRTP drops replays: only the first copy of sequence 9 is delivered.
        #expect(eventually { serverRecorder.rtp.withLock { $0.count } == 1 })
        #expect(serverRecorder.rtp.withLock { $0.first } == packet)
        let pli: [UInt8] = [0x81, 206, 0, 2, 0, 0, 0, 9, 1, 2, 3, 4]
        try onWorker(serverWorker) { pli.withUnsafeBytes { server.sendRTCP($0) } }
        #expect(eventually { clientRecorder.rtcp.withLock { $0.count } == 1 })
        #expect(clientRecorder.rtcp.withLock { $0.first } == pli)

        #expect(serverWorker.datagramsIn.load(ordering: .relaxed) == 0)
        #expect(serverWorker.tcpFramesReceived > 3)
        #expect(serverWorker.tcpConnectionsOpen == 1)

        // The client leaving closes its connection; the server side notices the end of stream.
        try onWorker(clientWorker) { client.close() }
        #expect(eventually { serverWorker.tcpConnectionsOpen == 0 })
        // DTLS close_notify went out before the connection closed.
        #expect(eventually { serverRecorder.failure.withLock { $0 } == .dtlsError })
        try onWorker(serverWorker) { server.close() }
    }

    @Test func wrongFingerprintFailsWithDTLSFingerprintError() throws {
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
        let otherSecurity = try DTLSSecurity.make()
        let serverRecorder = Recorder(), clientRecorder = Recorder()
        _ = try onWorker(serverWorker) {
            let t = try WebRTCTransport(worker: serverWorker, security: serverSecurity, parameters: TransportParameters(
                localUfrag: "srv2", localPassword: "server-password-0123456789",
                remoteUfrag: "cli2", remotePassword: "client-password-0123456789",
                // The offer named a certificate the client does not have.
                remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: otherSecurity.fingerprint,
                dtlsRole: .server, consentTimeoutMicros: 10_000_000))
            t.delegate = serverRecorder
            return t
        }
        _ = try onWorker(clientWorker) {
            let t = try WebRTCTransport(worker: clientWorker, security: clientSecurity, parameters: TransportParameters(
                localUfrag: "cli2", localPassword: "client-password-0123456789",
                remoteUfrag: "srv2", remotePassword: "server-password-0123456789",
                remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: serverSecurity.fingerprint,
                dtlsRole: .client, consentTimeoutMicros: 10_000_000, remoteCandidate: serverWorker.localAddress))
            t.delegate = clientRecorder
            return t
        }
        #expect(eventually { serverRecorder.failure.withLock { $0 } != nil })
        #expect(serverRecorder.failure.withLock { $0 } == .dtlsFingerprint)
        let serverConnected = serverRecorder.connected
        #expect(!serverConnected)
    }
}
