import Foundation
import SluiceClient
import SluiceServer
import Testing

/// The JSON-RPC layer against a real in-process server over the POSIX WebSocket channel.
@Suite(.serialized) struct SluiceSessionTests {
    @Test func connectPingAndDisconnect() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (session, log) = try await server.openSession()

        let result = try await session.connect(appKey: TestServer.appKey, custom: ["room": "a"], clientVersion: "test")
        #expect(!result.sessionId.isEmpty)
        #expect(!result.serverVersion.isEmpty)
        let established = try await log.first { n in
            if case .session(let update) = n { return update.status == .established }
            return false
        }
        #expect(established == .session(SessionStatusUpdate(status: .established, info: nil)))

        try await session.ping()
        try await session.disconnect()
        let closed = try await log.closed()
        #expect(closed.code == 1000)
        await #expect(throws: SignalingError.self) { try await session.ping() }
    }

    @Test func tokenAloneConnectsWithItsIdentity() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (session, _) = try await server.openSession()
        var command = TokenCommand()
        command.appKey = TestServer.appKey
        command.identity = "carol"
        command.play = ["*"]
        let token = try command.token(config: server.server.config)
        let result = try await session.connect(appKey: nil, token: token)
        #expect(result.identity == "carol")
        // Without a grant to publish, a publish is 1012.
        let error = await #expect(throws: SluiceRPCError.self) {
            _ = try await session.publish(stream: "cam", sdp: "v=0\r\n")
        }
        #expect(error?.code == 1012)
        #expect(error?.reason == "NOT_GRANTED")
    }

    @Test func unknownAppKeyIs1001AndCloses4001() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (session, log) = try await server.openSession()

        let error = await #expect(throws: SluiceRPCError.self) {
            _ = try await session.connect(appKey: "nope")
        }
        #expect(error?.code == SluiceRPCError.Code.unknownAppKey)
        #expect(error?.reason == "UNKNOWN_APP_KEY")
        #expect(error?.message == "Unknown app key")
        #expect(try await log.closed().code == 4001)
    }

    @Test func methodBeforeConnectIs1000() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (session, _) = try await server.openSession()
        let error = await #expect(throws: SluiceRPCError.self) { try await session.ping() }
        #expect(error?.code == SluiceRPCError.Code.notConnected)
        #expect(error?.reason == "NOT_CONNECTED")
        session.close()
    }

    @Test func playOfUnknownStreamIs1004() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (session, _) = try await server.connectedSession()
        let offer = ClientOffer(role: .play, iceUfrag: "abcd1234", icePassword: "0123456789abcdefghijklmn",
                                fingerprint: Self.fingerprint)
        let error = await #expect(throws: SluiceRPCError.self) {
            _ = try await session.play(stream: "nobody", sdp: offer.sdp)
        }
        #expect(error?.code == SluiceRPCError.Code.streamNotFound)
        #expect(error?.reason == "STREAM_NOT_FOUND")
        try await session.disconnect()
    }

    @Test func unknownHandleIs1007AndBadStreamNameIsInvalidParams() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (session, _) = try await server.connectedSession()
        let unknown = await #expect(throws: SluiceRPCError.self) { try await session.stop(handle: "no-such-handle") }
        #expect(unknown?.code == SluiceRPCError.Code.unknownHandle)
        let badName = await #expect(throws: SluiceRPCError.self) {
            _ = try await session.play(stream: "bad name!", sdp: "v=0")
        }
        #expect(badName?.code == SluiceRPCError.Code.invalidParams)
        #expect(badName?.reason == nil)
        try await session.disconnect()
    }

    @Test func openFailsWhenNothingListens() async throws {
        // A port from the test range with no server: connect is refused at once.
        let session = try SluiceSession(host: "127.0.0.1", port: 1).unwrapped("session URL")
        await #expect(throws: SignalingError.self) { try await session.open() }
        await #expect(throws: SignalingError.notOpen) { try await session.ping() }
    }

    static let fingerprint = (0..<32).map { _ in "AB" }.joined(separator: ":")
}
