import Testing
import SluiceWire
@testable import SluiceTransport

/// RFC 5769 test vectors, annotated as the RFC prints them.
enum RFC5769 {
    static let password = "VOkJxbRl1RmTxUk/WvJxBt"

    // 2.1 Sample Request
    static let request = hexBytes("""
        00 01 00 58  21 12 a4 42
        b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
        80 22 00 10  53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
        00 24 00 04  6e 00 01 ff
        80 29 00 08  93 2f f9 b1 51 26 3b 36
        00 06 00 09  65 76 74 6a 3a 68 36 76 59 20 20 20
        00 08 00 14  9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
        80 28 00 04  e5 7a 3b cf
        """)

    // 2.2 Sample IPv4 Response: 192.0.2.1 port 32853
    static let ipv4Response = hexBytes("""
        01 01 00 3c  21 12 a4 42
        b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
        80 22 00 0b  74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 08  00 01 a1 47 e1 12 a6 43
        00 08 00 14  2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
        80 28 00 04  c0 7d 4c 96
        """)

    // 2.3 Sample IPv6 Response: 2001:db8:1234:5678:11:2233:4455:6677 port 32853
    static let ipv6Response = hexBytes("""
        01 01 00 48  21 12 a4 42
        b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
        80 22 00 0b  74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 14  00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
        00 08 00 14  a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
        80 28 00 04  c8 fb 0b 4c
        """)
}

@Suite struct STUNMessageTests {
    @Test func sampleRequestParsesAndAuthenticates() throws {
        try RFC5769.request.withUnsafeBytes { raw in
            #expect(STUNMessage.isSTUN(raw))
            let message = try STUNMessage(parsing: raw)
            #expect(message.type == .bindingRequest)
            #expect(message.transactionID == STUNTransactionID(high: 0xb7e7_a701_bc34_d686, low: 0xfa87_dfae))
            #expect(string(message.username) == "evtj:h6vY")
            #expect(string(message.usernameLocalFragment) == "evtj")
            #expect(string(message.usernameRemoteFragment) == "h6vY")
            #expect(message.priority == 0x6e00_01ff)
            #expect(message.iceControlled == 0x932f_f9b1_5126_3b36)
            #expect(message.iceControlling == nil)
            #expect(message.useCandidate == false)
            #expect(message.messageIntegrityOffset == 0x58 + 20 - 32)
            #expect(message.checkMessageIntegrity(key: STUNIntegrityKey(password: RFC5769.password)))
            #expect(!message.checkMessageIntegrity(key: STUNIntegrityKey(password: "wrong")))
            #expect(message.checkFingerprint())
            let software = message.attributes.first { $0.type == STUNAttributeType.software }
            #expect(string(software?.value) == "STUN test client")
            #expect(Array(message.attributes).count == 6)
        }
    }

    @Test func sameKeyChecksRepeatedly() throws {
        let key = STUNIntegrityKey(password: RFC5769.password)
        for _ in 0..<3 {
            let ok = try RFC5769.request.withUnsafeBytes { raw in
                try STUNMessage(parsing: raw).checkMessageIntegrity(key: key)
            }
            #expect(ok)
        }
    }

    @Test func ipv4ResponseDecodesMappedAddress() throws {
        try RFC5769.ipv4Response.withUnsafeBytes { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.type == .bindingSuccessResponse)
            #expect(message.xorMappedAddress == SocketAddress(host: "192.0.2.1", port: 32853))
            #expect(message.checkMessageIntegrity(key: STUNIntegrityKey(password: RFC5769.password)))
            #expect(message.checkFingerprint())
        }
    }

    @Test func ipv6ResponseDecodesMappedAddress() throws {
        try RFC5769.ipv6Response.withUnsafeBytes { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.xorMappedAddress == SocketAddress(host: "2001:db8:1234:5678:11:2233:4455:6677", port: 32853))
            #expect(message.checkMessageIntegrity(key: STUNIntegrityKey(password: RFC5769.password)))
            #expect(message.checkFingerprint())
        }
    }

    @Test func tamperedBytesFailIntegrityAndFingerprint() throws {
        var bytes = RFC5769.request
        bytes[40] ^= 0x01  // inside PRIORITY
        try bytes.withUnsafeBytes { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(!message.checkMessageIntegrity(key: STUNIntegrityKey(password: RFC5769.password)))
            #expect(!message.checkFingerprint())
        }
    }

    @Test func messageTypeEncodingRoundTrips() {
        #expect(STUNMessageType.bindingRequest.rawValue == 0x0001)
        #expect(STUNMessageType.bindingSuccessResponse.rawValue == 0x0101)
        #expect(STUNMessageType.bindingErrorResponse.rawValue == 0x0111)
        #expect(STUNMessageType.bindingIndication.rawValue == 0x0011)
        for raw in [UInt16(0x0001), 0x0101, 0x0111, 0x0011, 0x3EEF, 0x0003] {
            #expect(STUNMessageType(rawValue: raw).rawValue == raw)
        }
    }

    @Test(arguments: [
        ("", STUNParseError.tooShort),
        ("00 01 00 00 21 12 a4 42 00 00 00 00 00 00 00 00 00 00 00", .tooShort),
        ("80 01 00 00 21 12 a4 42 00 00 00 00 00 00 00 00 00 00 00 00", .notSTUN),
        ("00 01 00 00 21 12 a4 43 00 00 00 00 00 00 00 00 00 00 00 00", .notSTUN),
        ("00 01 00 04 21 12 a4 42 00 00 00 00 00 00 00 00 00 00 00 00", .badLength),
        ("00 01 00 02 21 12 a4 42 00 00 00 00 00 00 00 00 00 00 00 00 00 00", .badLength),
        ("00 01 00 04 21 12 a4 42 00 00 00 00 00 00 00 00 00 00 00 00 00 06 00 09", .truncatedAttribute),
        ("00 01 00 08 21 12 a4 42 00 00 00 00 00 00 00 00 00 00 00 00 00 24 00 02 00 00 00 00",
         .badAttributeValue(STUNAttributeType.priority)),
        ("00 01 00 08 21 12 a4 42 00 00 00 00 00 00 00 00 00 00 00 00 80 28 00 02 00 00 00 00",
         .badAttributeValue(STUNAttributeType.fingerprint)),
    ])
    func malformedInputIsRejected(hex: String, expected: STUNParseError) {
        let bytes = hexBytes(hex)
        #expect(throws: expected) {
            try bytes.withUnsafeBytes { raw in _ = try STUNMessage(parsing: raw) }
        }
    }

    @Test func isSTUNFollowsRFC7983() {
        let dtls = hexBytes("16 fe fd 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")
        let rtp = hexBytes("80 60 00 01 21 12 a4 42 00 00 00 00 00 00 00 00 00 00 00 00")
        #expect(!dtls.withUnsafeBytes { STUNMessage.isSTUN($0) })
        #expect(!rtp.withUnsafeBytes { STUNMessage.isSTUN($0) })
        #expect(RFC5769.ipv6Response.withUnsafeBytes { STUNMessage.isSTUN($0) })
    }

    @Test func crc32MatchesCheckValue() {
        Array("123456789".utf8).withUnsafeBytes { #expect(CRC32.checksum($0) == 0xCBF4_3926) }
    }
}
