import Testing
@testable import SluiceDataChannel

/// DCEP (RFC 8832): the open message as browsers write it, every channel type, and what a
/// malformed one is refused with.
@Suite struct DCEPMessageTests {
    /// Chromium's open for `createDataChannel("chat")`: reliable, ordered, priority 256.
    let chromiumOpen: [UInt8] = [0x03, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 4, 0, 0] + Array("chat".utf8)

    func parse(_ bytes: [UInt8]) throws -> DCEPMessage {
        try bytes.withUnsafeBytes { try DCEPMessage(parsing: $0) }
    }

    @Test func readsABrowsersOpen() throws {
        let message = try parse(chromiumOpen)
        #expect(message == .open(DCEPOpen(reliability: .reliableOrdered, priority: 256, label: "chat", protocol: "")))
        #expect(message.bytes == chromiumOpen)
    }

    @Test func readsEveryChannelType() throws {
        let cases: [(UInt8, UInt32, ChannelReliability)] = [
            (0x00, 0, ChannelReliability(ordered: true, limit: .reliable)),
            (0x80, 0, ChannelReliability(ordered: false, limit: .reliable)),
            (0x01, 3, ChannelReliability(ordered: true, limit: .retransmits(3))),
            (0x81, 0, ChannelReliability(ordered: false, limit: .retransmits(0))),
            (0x02, 1500, ChannelReliability(ordered: true, limit: .lifetimeMs(1500))),
            (0x82, 200, ChannelReliability(ordered: false, limit: .lifetimeMs(200))),
        ]
        for (type, parameter, expected) in cases {
            let bytes: [UInt8] = [0x03, type, 0, 0, UInt8(parameter >> 24), UInt8((parameter >> 16) & 0xff),
                                  UInt8((parameter >> 8) & 0xff), UInt8(parameter & 0xff), 0, 1, 0, 3] + Array("xbin".utf8)
            guard case .open(let open) = try parse(bytes) else {
                Issue.record("type \(type) did not parse as an open")
                continue
            }
            #expect(open.reliability == expected)
            #expect(open.label == "x" && open.protocol == "bin")
            #expect(open.reliability.channelType == type && open.reliability.parameter == parameter)
        }
    }

    @Test func readsTheAck() throws {
        #expect(try parse([0x02]) == .ack)
        #expect(DCEPMessage.ack.bytes == [0x02])
    }

    @Test func refusesMalformedMessages() {
        #expect(throws: DCEPMessage.ParseError.empty) { try parse([]) }
        #expect(throws: DCEPMessage.ParseError.unknownType(0x07)) { try parse([0x07]) }
        #expect(throws: DCEPMessage.ParseError.truncated(needed: 12, have: 5)) { try parse([0x03, 0, 0, 0, 0]) }
        // The lengths promise a 10-byte label that is not there.
        #expect(throws: DCEPMessage.ParseError.truncated(needed: 22, have: 14)) {
            try parse([0x03, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0x61, 0x62])
        }
        #expect(throws: DCEPMessage.ParseError.unknownChannelType(0x03)) {
            try parse([0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        }
        #expect(throws: DCEPMessage.ParseError.badUTF8(field: "label")) {
            try parse([0x03, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0xff])
        }
    }

    @Test func picksThePayloadProtocolOfAMessage() {
        #expect(PayloadProtocol.message(binary: true, count: 10) == .binary)
        #expect(PayloadProtocol.message(binary: true, count: 0) == .emptyBinary)
        #expect(PayloadProtocol.message(binary: false, count: 3) == .string)
        #expect(PayloadProtocol.message(binary: false, count: 0) == .emptyString)
        #expect(PayloadProtocol.emptyBinary.isBinary && PayloadProtocol.emptyBinary.isEmpty)
    }
}
