import Testing
import SluiceWire
@testable import SluiceTransport

@Suite struct ICELiteServerTests {
    let peer = SocketAddress(host: "127.0.0.1", port: 50000)!
    let otherPeer = SocketAddress(host: "127.0.0.2", port: 50001)!

    func makeServer(remoteUfrag: String? = "peer") -> ICELiteServer {
        ICELiteServer(localUfrag: "srvU", localPassword: "server-password-123456", remoteUfrag: remoteUfrag, now: 0)
    }

    /// Builds a request as a browser would: USERNAME "srvU:peer", keyed with the server password.
    func request(username: String = "srvU:peer", password: String = "server-password-123456",
                 useCandidate: Bool = false, controlled: Bool = false, fingerprint: Bool = true) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 256)
        let key = STUNIntegrityKey(password: password)
        let length = buffer.withUnsafeMutableBytes { out -> Int in
            var writer = STUNMessageWriter(into: out, type: .bindingRequest, transactionID: .random())
            Array(username.utf8).withUnsafeBytes { writer.appendAttribute(type: STUNAttributeType.username, value: $0) }
            writer.appendAttribute(type: STUNAttributeType.priority, value: UInt32(0x6E00_01FF))
            writer.appendAttribute(type: controlled ? STUNAttributeType.iceControlled : STUNAttributeType.iceControlling,
                                   value: UInt64(42))
            if useCandidate { writer.appendFlag(type: STUNAttributeType.useCandidate) }
            writer.appendMessageIntegrity(key: key)
            if fingerprint { writer.appendFingerprint() }
            return writer.finish()!
        }
        return Array(buffer.prefix(length))
    }

    func handle(_ server: ICELiteServer, _ datagram: [UInt8], from source: SocketAddress, now: UInt64 = 1)
        throws -> (ICEResult, [UInt8]) {
        var reply = [UInt8](repeating: 0, count: 128)
        let result = try datagram.withUnsafeBytes { raw in
            let message = try STUNMessage(parsing: raw)
            return reply.withUnsafeMutableBytes { server.handleBindingRequest(message, from: source, now: now, reply: $0) }
        }
        if case .respond(let length, _) = result { return (result, Array(reply.prefix(length))) }
        return (result, [])
    }

    @Test func answersAuthenticatedRequestWithMappedAddress() throws {
        let server = makeServer()
        let datagram = request()
        let (result, reply) = try handle(server, datagram, from: peer)
        #expect(result == .respond(length: reply.count, tupleChange: .selected))
        try reply.withUnsafeBytes { raw in
            let response = try STUNMessage(parsing: raw)
            #expect(response.type == .bindingSuccessResponse)
            #expect(response.xorMappedAddress == peer)
            #expect(response.checkMessageIntegrity(key: STUNIntegrityKey(password: "server-password-123456")))
            #expect(response.checkFingerprint())
            let requestID = try datagram.withUnsafeBytes { try STUNMessage(parsing: $0).transactionID }
            #expect(response.transactionID == requestID)
        }
        #expect(server.selectedTuple == peer)
        #expect(!server.isNominated)
        #expect(server.hasTuple(peer))
    }

    @Test func dropsUnauthenticatedRequests() throws {
        let server = makeServer()
        #expect(try handle(server, request(password: "wrong"), from: peer).0 == .drop(.badIntegrity))
        #expect(try handle(server, request(username: "other:peer"), from: peer).0 == .drop(.usernameMismatch))
        #expect(try handle(server, request(username: "srvU:intruder"), from: peer).0 == .drop(.usernameMismatch))
        #expect(try handle(server, request(username: "srvU"), from: peer).0 == .drop(.usernameMismatch))
        var corrupted = request()
        corrupted[corrupted.count - 1] ^= 0xFF
        #expect(try handle(server, corrupted, from: peer).0 == .drop(.badFingerprint))
        #expect(server.selectedTuple == nil)
        #expect(server.tuples.isEmpty)
    }

    @Test func acceptsAnySenderUfragWhenRemoteUnknown() throws {
        let server = makeServer(remoteUfrag: nil)
        #expect(try handle(server, request(username: "srvU:whoever"), from: peer).0
            == .respond(length: 64, tupleChange: .selected))
        #expect(try handle(server, request(username: "srvUx:whoever"), from: peer).0 == .drop(.usernameMismatch))
    }

    @Test func acceptsRequestWithoutFingerprint() throws {
        let server = makeServer()
        if case .respond = try handle(server, request(fingerprint: false), from: peer).0 {} else {
            Issue.record("request without FINGERPRINT was dropped")
        }
    }

    @Test func nominationMovesTheSelectedTuple() throws {
        let server = makeServer()
        #expect(try handle(server, request(), from: peer).0.tupleChange == .selected)
        #expect(try handle(server, request(), from: otherPeer).0.tupleChange == .added)
        #expect(server.selectedTuple == peer)
        #expect(try handle(server, request(useCandidate: true), from: otherPeer).0.tupleChange == .selected)
        #expect(server.selectedTuple == otherPeer)
        #expect(server.isNominated)
        // Repeated nomination on the same tuple changes nothing; an unnominated check elsewhere neither.
        #expect(try handle(server, request(useCandidate: true), from: otherPeer).0.tupleChange == ICETupleChange.none)
        #expect(try handle(server, request(), from: peer).0.tupleChange == ICETupleChange.none)
        #expect(server.selectedTuple == otherPeer)
    }

    @Test func roleConflictGets487() throws {
        let server = makeServer()
        let (result, reply) = try handle(server, request(controlled: true), from: peer)
        #expect(result.tupleChange == ICETupleChange.none)
        try reply.withUnsafeBytes { raw in
            let response = try STUNMessage(parsing: raw)
            #expect(response.type == .bindingErrorResponse)
            #expect(response.errorCode?.code == 487)
        }
        #expect(server.selectedTuple == nil)
    }

    @Test func controllingSideAnswersAControlledPeerAndRefusesAControllingOne() throws {
        // The client role answers a full peer's checks (Janus, libnice) as the controlling agent.
        let server = makeServer()
        server.isControlling = true
        let (answered, success) = try handle(server, request(controlled: true), from: peer)
        #expect(answered.tupleChange != ICETupleChange.none)
        let successType = try success.withUnsafeBytes { try STUNMessage(parsing: $0).type }
        #expect(successType == .bindingSuccessResponse)
        let (_, conflict) = try handle(server, request(controlled: false), from: peer)
        try conflict.withUnsafeBytes { raw in
            let response = try STUNMessage(parsing: raw)
            #expect(response.type == .bindingErrorResponse && response.errorCode?.code == 487)
        }
    }

    @Test func consentExpiresWithoutRequestsOnSelectedTuple() throws {
        let server = makeServer()
        #expect(!server.isConsentExpired(now: 1_000_000, timeoutMicros: 5_000_000))
        _ = try handle(server, request(useCandidate: true), from: peer, now: 4_000_000)
        #expect(!server.isConsentExpired(now: 8_000_000, timeoutMicros: 5_000_000))
        // Requests on another tuple do not refresh consent for the selected one.
        _ = try handle(server, request(), from: otherPeer, now: 8_000_000)
        #expect(server.isConsentExpired(now: 9_500_000, timeoutMicros: 5_000_000))
        _ = try handle(server, request(), from: peer, now: 9_600_000)
        #expect(!server.isConsentExpired(now: 9_700_000, timeoutMicros: 5_000_000))
    }

    @Test func tupleCountIsBounded() throws {
        let server = makeServer()
        for port in 0..<(ICELiteServer.maxTuples + 4) {
            _ = try handle(server, request(), from: SocketAddress(host: "127.0.0.1", port: UInt16(10000 + port))!)
        }
        #expect(server.tuples.count == ICELiteServer.maxTuples)
        let late = SocketAddress(host: "127.0.0.9", port: 9)!
        #expect(try handle(server, request(useCandidate: true), from: late).0.tupleChange == .selected)
        #expect(server.tuples.count == ICELiteServer.maxTuples)
        #expect(server.hasTuple(late))
    }

    @Test func localUfragIsReadWithoutParsingTwice() {
        let datagram = request(username: "srvU:peer")
        let ufrag = datagram.withUnsafeBytes { string(ICELiteServer.localUfrag(inBindingRequest: $0)) }
        #expect(ufrag == "srvU")
        let notSTUN: [UInt8] = [0x80, 0x60, 0, 1]
        #expect(notSTUN.withUnsafeBytes { ICELiteServer.localUfrag(inBindingRequest: $0) } == nil)
    }
}

extension ICEResult {
    var tupleChange: ICETupleChange? {
        if case .respond(_, let change) = self { return change }
        return nil
    }
}
