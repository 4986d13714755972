import Testing
import SluiceWire
@testable import SluiceTransport

@Suite struct ICEClientTests {
    let serverAddress = SocketAddress(host: "127.0.0.1", port: 3478)!
    let clientAddress = SocketAddress(host: "127.0.0.1", port: 40000)!

    func makePair() -> (ICEClient, ICELiteServer) {
        let server = ICELiteServer(localUfrag: "srv", localPassword: "server-pass-0123456789", remoteUfrag: "cli", now: 0)
        let client = ICEClient(localUfrag: "cli", remoteUfrag: "srv", remotePassword: "server-pass-0123456789",
                               remoteAddress: serverAddress, initialRTOMicros: 100_000, maxTransmissions: 3,
                               consentIntervalMicros: 1_000_000, consentTimeoutMicros: 5_000_000)
        return (client, server)
    }

    /// Delivers one client request to the server and, if `deliverReply`, the answer back.
    func exchange(_ client: ICEClient, _ server: ICELiteServer, now: UInt64, deliverReply: Bool = true) throws -> Bool {
        var out = [UInt8](repeating: 0, count: 256)
        guard let length = out.withUnsafeMutableBytes({ client.poll(now: now, into: $0) }) else { return false }
        var reply = [UInt8](repeating: 0, count: 128)
        let result = try out.withUnsafeBytes { raw in
            let message = try STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            #expect(message.useCandidate)
            return reply.withUnsafeMutableBytes { server.handleBindingRequest(message, from: clientAddress, now: now, reply: $0) }
        }
        guard case .respond(let replyLength, _) = result else {
            Issue.record("server dropped the client's request: \(result)")
            return true
        }
        if deliverReply {
            let matched = try reply.withUnsafeBytes { raw in
                let response = try STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: raw[0..<replyLength]))
                return client.handleResponse(response, from: serverAddress, now: now)
            }
            #expect(matched)
        }
        return true
    }

    @Test func connectsAndNominates() throws {
        let (client, server) = makePair()
        #expect(client.state == .new)
        #expect(try exchange(client, server, now: 10))
        #expect(client.state == .connected)
        #expect(client.mappedAddress == clientAddress)
        #expect(server.isNominated)
        #expect(server.selectedTuple == clientAddress)
    }

    @Test func retransmitsOnScheduleThenFails() throws {
        let (client, server) = makePair()
        #expect(try exchange(client, server, now: 0, deliverReply: false))
        #expect(client.nextDeadlineMicros == 100_000)
        #expect(try !exchange(client, server, now: 50_000, deliverReply: false))
        #expect(try exchange(client, server, now: 100_000, deliverReply: false))
        #expect(client.nextDeadlineMicros == 300_000)
        #expect(try exchange(client, server, now: 300_000, deliverReply: false))
        #expect(client.state == .checking)
        #expect(try !exchange(client, server, now: 700_000, deliverReply: false))
        #expect(client.state == .failed)
    }

    @Test func retransmissionKeepsTransaction() throws {
        let (client, _) = makePair()
        var first = [UInt8](repeating: 0, count: 256), second = first
        let firstLength = try #require(first.withUnsafeMutableBytes { client.poll(now: 0, into: $0) })
        let secondLength = try #require(second.withUnsafeMutableBytes { client.poll(now: 100_000, into: $0) })
        let ids = try [(first, firstLength), (second, secondLength)].map { bytes, length in
            try bytes.withUnsafeBytes { try STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: $0[0..<length])).transactionID }
        }
        #expect(ids[0] == ids[1])
    }

    @Test func ignoresForgedResponses() throws {
        let (client, _) = makePair()
        var out = [UInt8](repeating: 0, count: 256)
        let length = try #require(out.withUnsafeMutableBytes { client.poll(now: 0, into: $0) })
        let transactionID = try out.withUnsafeBytes {
            try STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: $0[0..<length])).transactionID
        }
        var reply = [UInt8](repeating: 0, count: 128)
        let replyLength = try #require(reply.withUnsafeMutableBytes {
            STUNMessageWriter.bindingSuccessResponse(into: $0, transactionID: transactionID, mappedAddress: clientAddress,
                                                     key: STUNIntegrityKey(password: "not-the-server"))
        })
        try reply.withUnsafeBytes { raw in
            let response = try STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: raw[0..<replyLength]))
            #expect(!client.handleResponse(response, from: serverAddress, now: 1))
        }
        #expect(client.state == .checking)
    }

    @Test func consentRefreshesAndExpires() throws {
        let (client, server) = makePair()
        #expect(try exchange(client, server, now: 0))
        #expect(try !exchange(client, server, now: 500_000))
        #expect(try exchange(client, server, now: 1_000_000))
        #expect(client.state == .connected)
        // No more answers: consent fails after the timeout from the last success.
        #expect(try exchange(client, server, now: 2_000_000, deliverReply: false))
        var out = [UInt8](repeating: 0, count: 256)
        #expect(out.withUnsafeMutableBytes { client.poll(now: 6_500_000, into: $0) } == nil)
        #expect(client.state == .failed)
    }
}
