import Testing
import SluiceWire
@testable import SluiceTransport

@Suite struct STUNMessageWriterTests {
    let key = STUNIntegrityKey(password: RFC5769.password)
    let transactionID = STUNTransactionID(high: 0xb7e7_a701_bc34_d686, low: 0xfa87_dfae)

    /// Rebuilds RFC 5769 2.2 byte for byte (SOFTWARE padded with a space as the RFC does).
    @Test func rebuildsSampleIPv4Response() throws {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = buffer.withUnsafeMutableBytes { out -> Int? in
            var message = STUNMessageWriter(into: out, type: .bindingSuccessResponse, transactionID: transactionID)
            Array("test vector".utf8).withUnsafeBytes {
                message.appendAttribute(type: STUNAttributeType.software, value: $0)
            }
            message.appendXORMappedAddress(SocketAddress(host: "192.0.2.1", port: 32853)!, transactionID: transactionID)
            out[35] = 0x20  // the RFC pads SOFTWARE with a space; the padding is not covered by any rule
            message.appendMessageIntegrity(key: key)
            message.appendFingerprint()
            return message.finish()
        }
        #expect(length == RFC5769.ipv4Response.count)
        #expect(Array(buffer.prefix(length ?? 0)) == RFC5769.ipv4Response)
    }

    @Test(arguments: ["192.0.2.1", "127.0.0.1", "2001:db8:1234:5678:11:2233:4455:6677", "::1"])
    func successResponseVerifies(host: String) throws {
        let address = SocketAddress(host: host, port: 40000)!
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = try #require(buffer.withUnsafeMutableBytes {
            STUNMessageWriter.bindingSuccessResponse(into: $0, transactionID: transactionID,
                                                     mappedAddress: address, key: key)
        })
        try buffer.withUnsafeBytes { raw in
            let message = try STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            #expect(message.type == .bindingSuccessResponse)
            #expect(message.transactionID == transactionID)
            #expect(message.xorMappedAddress == address)
            #expect(message.checkMessageIntegrity(key: key))
            #expect(message.checkFingerprint())
        }
    }

    @Test func errorResponseCarriesCode() throws {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = try #require(buffer.withUnsafeMutableBytes {
            STUNMessageWriter.bindingErrorResponse(into: $0, transactionID: transactionID,
                                                   code: 487, reason: "Role Conflict", key: key)
        })
        try buffer.withUnsafeBytes { raw in
            let message = try STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            #expect(message.type == .bindingErrorResponse)
            #expect(message.errorCode?.code == 487)
            #expect(string(message.errorCode?.reason) == "Role Conflict")
            #expect(message.checkMessageIntegrity(key: key))
            #expect(message.checkFingerprint())
        }
    }

    @Test func requestCarriesICEAttributes() throws {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = try #require(buffer.withUnsafeMutableBytes { out in
            Array("remote:local".utf8).withUnsafeBytes { username in
                STUNMessageWriter.bindingRequest(into: out, transactionID: transactionID, username: username,
                                                 priority: 0x6EFF_FFFF, tieBreaker: 0x0102_0304_0506_0708,
                                                 useCandidate: true, key: key)
            }
        })
        try buffer.withUnsafeBytes { raw in
            let message = try STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            #expect(message.type == .bindingRequest)
            #expect(string(message.username) == "remote:local")
            #expect(message.priority == 0x6EFF_FFFF)
            #expect(message.iceControlling == 0x0102_0304_0506_0708)
            #expect(message.useCandidate)
            #expect(message.checkMessageIntegrity(key: key))
            #expect(message.checkFingerprint())
        }
    }

    @Test func overflowReturnsNil() {
        var buffer = [UInt8](repeating: 0, count: 40)
        let length = buffer.withUnsafeMutableBytes {
            STUNMessageWriter.bindingSuccessResponse(into: $0, transactionID: transactionID,
                                                     mappedAddress: SocketAddress(host: "::1", port: 1)!, key: key)
        }
        #expect(length == nil)
    }
}
