import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import SluiceTransport

/// Two endpoints, each with its own certificate, wired in memory.
final class DTLSPair {
    let clientContext: DTLSContext
    let serverContext: DTLSContext
    let client: DTLSSession
    let server: DTLSSession
    var clientToServer: [[UInt8]] = []
    var serverToClient: [[UInt8]] = []
    var clientData: [[UInt8]] = []
    var serverData: [[UInt8]] = []

    init(clientProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMHMACSHA1_80],
         serverProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMHMACSHA1_80],
         wrongFingerprintForServer: Bool = false, initialRetransmitMicros: UInt32 = 400_000) throws {
        clientContext = try DTLSContext(certificate: DTLSCertificate(), srtpProfiles: clientProfiles)
        serverContext = try DTLSContext(certificate: DTLSCertificate(), srtpProfiles: serverProfiles)
        let serverFingerprint = wrongFingerprintForServer
            ? try DTLSCertificate().fingerprintSHA256 : serverContext.certificate.fingerprintSHA256
        client = try DTLSSession(context: clientContext, role: .client,
                                 expectedFingerprint: ("sha-256", serverFingerprint),
                                 initialRetransmitMicros: initialRetransmitMicros)
        server = try DTLSSession(context: serverContext, role: .server,
                                 expectedFingerprint: ("sha-256", clientContext.certificate.fingerprintSHA256.lowercased()),
                                 initialRetransmitMicros: initialRetransmitMicros)
    }

    func collect() {
        client.drainOutgoing { clientToServer.append(Array($0)) }
        server.drainOutgoing { serverToClient.append(Array($0)) }
    }

    /// Delivers queued datagrams both ways until nothing moves.
    func pump(maxRounds: Int = 20) {
        for _ in 0..<maxRounds {
            collect()
            if clientToServer.isEmpty && serverToClient.isEmpty { return }
            let toServer = clientToServer, toClient = serverToClient
            clientToServer = []
            serverToClient = []
            for datagram in toServer {
                #expect(datagram.count <= DTLSSession.defaultMTU)
                datagram.withUnsafeBytes { _ = server.handle(datagram: $0) { self.serverData.append(Array($0)) } }
            }
            for datagram in toClient {
                #expect(datagram.count <= DTLSSession.defaultMTU)
                datagram.withUnsafeBytes { _ = client.handle(datagram: $0) { self.clientData.append(Array($0)) } }
            }
        }
    }
}

@Suite struct DTLSSessionTests {
    @Test func certificateFingerprintLooksLikeSDP() throws {
        let certificate = try DTLSCertificate()
        let parts = certificate.fingerprintSHA256.split(separator: ":")
        #expect(parts.count == 32)
        #expect(parts.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        #expect(certificate.fingerprint(algorithm: "sha-1")?.split(separator: ":").count == 20)
        #expect(certificate.fingerprint(algorithm: "SHA-512")?.split(separator: ":").count == 64)
        #expect(certificate.fingerprint(algorithm: "md5") == nil)
        #expect(try DTLSCertificate().fingerprintSHA256 != certificate.fingerprintSHA256)
    }

    @Test func handshakeConnectsAndKeysMatchCrosswise() throws {
        let pair = try DTLSPair()
        pair.client.start()
        pair.server.start()
        #expect(pair.client.state == .connecting)
        #expect(pair.client.hasOutgoing)
        pair.pump()
        #expect(pair.client.state == .connected)
        #expect(pair.server.state == .connected)
        let clientKeys = try #require(pair.client.srtpKeyMaterial)
        let serverKeys = try #require(pair.server.srtpKeyMaterial)
        #expect(clientKeys.profile == .aeadAES128GCM)
        #expect(serverKeys.profile == .aeadAES128GCM)
        #expect(clientKeys.localKey.count == 16 && clientKeys.localSalt.count == 12)
        #expect(clientKeys.localKey == serverKeys.remoteKey)
        #expect(clientKeys.localSalt == serverKeys.remoteSalt)
        #expect(clientKeys.remoteKey == serverKeys.localKey)
        #expect(clientKeys.remoteSalt == serverKeys.localSalt)
        #expect(clientKeys.localKey != clientKeys.remoteKey)
        #expect(pair.client.peerFingerprint == pair.serverContext.certificate.fingerprintSHA256)
    }

    @Test func cmProfileWhenPeerOffersOnlyCM() throws {
        let pair = try DTLSPair(clientProfiles: [.aes128CMHMACSHA1_80])
        pair.client.start()
        pair.pump()
        #expect(pair.client.state == .connected)
        let keys = try #require(pair.server.srtpKeyMaterial)
        #expect(keys.profile == .aes128CMHMACSHA1_80)
        #expect(keys.localKey.count == 16 && keys.localSalt.count == 14)
        #expect(pair.client.srtpKeyMaterial?.remoteSalt == keys.localSalt)
    }

    @Test func srtpInteroperatesWithDerivedKeys() throws {
        let pair = try DTLSPair()
        pair.client.start()
        pair.pump()
        let clientOut = try #require(pair.client.srtpKeyMaterial).makeOutboundSession()
        let serverIn = try #require(pair.server.srtpKeyMaterial).makeInboundSession()
        let serverOut = try #require(pair.server.srtpKeyMaterial).makeOutboundSession()
        let clientIn = try #require(pair.client.srtpKeyMaterial).makeInboundSession()
        let rtp: [UInt8] = [0x80, 0x6F, 0x00, 0x01, 0, 0, 0, 160, 0xDE, 0xAD, 0xBE, 0xEF] + Array(repeating: 0x55, count: 100)
        for (sender, receiver) in [(clientOut, serverIn), (serverOut, clientIn)] {
            var buffer = rtp + [UInt8](repeating: 0, count: SRTPSession.maxRTPTrailer)
            var length = rtp.count
            let capacity = buffer.count
            #expect(buffer.withUnsafeMutableBytes { sender.protectRTP($0.baseAddress!, length: &length, capacity: capacity) })
            #expect(Array(buffer.prefix(length)) != rtp)
            #expect(buffer.withUnsafeMutableBytes { receiver.unprotectRTP($0.baseAddress!, length: &length) })
            #expect(Array(buffer.prefix(length)) == rtp)
        }
    }

    @Test func wrongFingerprintFails() throws {
        let pair = try DTLSPair(wrongFingerprintForServer: true)
        pair.client.start()
        pair.pump()
        #expect(pair.client.state == .failed(.fingerprintMismatch))
        #expect(pair.client.srtpKeyMaterial == nil)
    }

    @Test func applicationDataAndCloseNotify() throws {
        let pair = try DTLSPair()
        pair.client.start()
        pair.pump()
        let message: [UInt8] = Array("sctp packet".utf8)
        #expect(message.withUnsafeBytes { pair.client.sendApplicationData($0) })
        #expect(message.withUnsafeBytes { pair.server.sendApplicationData($0) })
        pair.pump()
        #expect(pair.serverData == [message])
        #expect(pair.clientData == [message])
        pair.client.close()
        pair.pump()
        #expect(pair.client.state == .closed)
        #expect(pair.server.state == .closed)
    }

    /// Drops the ClientHello, then waits for the (1 ms) timer and expects a retransmission.
    /// The wait polls the timer with a bounded number of short sleeps, so the test does not
    /// depend on how fast the machine is, only on the clock moving.
    @Test func retransmitsAfterTimeout() throws {
        let pair = try DTLSPair(initialRetransmitMicros: 1_000)
        pair.client.start()
        var dropped: [[UInt8]] = []
        pair.client.drainOutgoing { dropped.append(Array($0)) }
        #expect(dropped.count == 1)
        #expect(!pair.client.hasOutgoing)
        #expect(pair.client.nextTimeoutMicros != nil)
        var waits = 0
        while !pair.client.hasOutgoing && waits < 1_000 {
            usleep(1_000)
            waits += 1
            if pair.client.nextTimeoutMicros == 0 { pair.client.handleTimeout() }
        }
        #expect(pair.client.hasOutgoing)
        var retransmitted: [[UInt8]] = []
        pair.client.drainOutgoing { retransmitted.append(Array($0)) }
        #expect(retransmitted.count == 1)
        // Same ClientHello content type and handshake type; only the record sequence differs.
        #expect(retransmitted.first?.prefix(3) == dropped.first?.prefix(3))
        #expect(retransmitted.first?[13] == 1)  // client_hello
        retransmitted[0].withUnsafeBytes { _ = pair.server.handle(datagram: $0) }
        pair.pump()
        #expect(pair.client.state == .connected)
        #expect(pair.server.state == .connected)
    }

    @Test func garbageFailsHandshakeWithoutTrapping() throws {
        let pair = try DTLSPair()
        pair.server.start()
        let garbage: [UInt8] = [0x16, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 1, 2, 3]
        garbage.withUnsafeBytes { _ = pair.server.handle(datagram: $0) }
        if case .failed = pair.server.state {} else if pair.server.state == .connecting {} else {
            Issue.record("unexpected state \(pair.server.state)")
        }
        #expect(pair.server.srtpKeyMaterial == nil)
    }

    @Test func recordSplittingRespectsMTU() {
        // Three 600-byte records: packed as [r1], [r2], [r3] because two exceed 1200.
        var bytes: [UInt8] = []
        for _ in 0..<3 {
            bytes += [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x4B]  // 587-byte body
            bytes += [UInt8](repeating: 0, count: 587)
        }
        bytes.withUnsafeBytes { raw in
            #expect(DTLSSession.recordEnd(in: raw, at: 0) == 600)
            #expect(DTLSSession.recordEnd(in: raw, at: 1_795) == 1_800)
        }
    }
}
