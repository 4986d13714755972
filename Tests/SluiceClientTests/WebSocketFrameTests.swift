import Foundation
import Testing
@testable import SluiceClient

struct WebSocketFrameTests {
    @Test func unmaskedServerTextFrame() throws {
        // RFC 6455 5.7: a single-frame unmasked text message "Hello".
        let bytes: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        let parsed = try #require(try WebSocketFrame.parse(bytes[...], maxPayload: 1000))
        #expect(parsed.consumed == 7)
        #expect(parsed.frame == WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)))
    }

    @Test func maskedClientFrameRoundTrips() throws {
        // RFC 6455 5.7: the masked "Hello" with key 37 fa 21 3d.
        let frame = WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
        let bytes = frame.serialized(mask: (0x37, 0xfa, 0x21, 0x3d))
        #expect(bytes == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        #expect(try WebSocketFrame.parse(bytes[...], maxPayload: 1000)?.frame == frame)
    }

    @Test func extendedLengthsAndPartialInput() throws {
        for count in [125, 126, 65535, 65536] {
            let frame = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: count))
            let bytes = frame.serialized(mask: (1, 2, 3, 4))
            #expect(try WebSocketFrame.parse(bytes[...], maxPayload: 1 << 20)?.frame == frame)
            #expect(try WebSocketFrame.parse(bytes.dropLast(), maxPayload: 1 << 20) == nil)
        }
    }

    @Test func badFramesAreErrors() {
        #expect(throws: WebSocketFrame.ParseError.reservedBits) { try WebSocketFrame.parse([0xC1, 0x00][...], maxPayload: 10) }
        #expect(throws: WebSocketFrame.ParseError.unknownOpcode(3)) { try WebSocketFrame.parse([0x83, 0x00][...], maxPayload: 10) }
        // A fragmented ping.
        #expect(throws: WebSocketFrame.ParseError.badControlFrame) { try WebSocketFrame.parse([0x09, 0x00][...], maxPayload: 10) }
        #expect(throws: WebSocketFrame.ParseError.tooLarge(11)) { try WebSocketFrame.parse([0x81, 11][...], maxPayload: 10) }
    }

    @Test func closePayload() {
        let payload = WebSocketFrame.closePayload(code: 4001, reason: "bye")
        #expect(payload == [0x0f, 0xa1] + Array("bye".utf8))
        #expect(WebSocketFrame.parseClose(payload) == (4001, "bye"))
        #expect(WebSocketFrame.parseClose([]) == (nil, ""))
    }

    @Test func sha1Vectors() {
        // FIPS 180 examples.
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    #if os(Linux)
    @Test func acceptKeyOfRFC6455() throws {
        // RFC 6455 1.3: key "dGhlIHNhbXBsZSBub25jZQ==" gives "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        try POSIXWebSocketChannel.checkUpgrade(head: head, key: "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(throws: SignalingError.self) {
            try POSIXWebSocketChannel.checkUpgrade(head: head, key: "AAAAAAAAAAAAAAAAAAAAAA==")
        }
        #expect(throws: SignalingError.self) {
            try POSIXWebSocketChannel.checkUpgrade(head: "HTTP/1.1 404 Not Found\r\n", key: "dGhlIHNhbXBsZSBub25jZQ==")
        }
    }

    @Test func subprotocolMustBeOneOffered() throws {
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: janus-protocol"
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        try POSIXWebSocketChannel.checkUpgrade(head: head, key: key, protocols: ["janus-protocol"])
        #expect(throws: SignalingError.self) { try POSIXWebSocketChannel.checkUpgrade(head: head, key: key) }
        #expect(throws: SignalingError.self) {
            try POSIXWebSocketChannel.checkUpgrade(head: head, key: key, protocols: ["other"])
        }
    }
    #endif

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
