import Foundation
import SluiceClient
import Testing

@Suite(.serialized) struct URLSessionSignalingChannelTests {
    /// On Linux URLSessionWebSocketTask needs a libcurl with WebSocket support: with one, the
    /// channel must carry a session; without, opening must fail with an error, not hang.
    @Test func worksOrFailsCleanly() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let url = URL(string: "ws://127.0.0.1:\(server.port)/ws")!
        let session = SluiceSession(url: url, channel: URLSessionSignalingChannel(url: url), requestTimeout: 5)
        do {
            try await session.open()
        } catch {
            #expect(error is SignalingError)
            return
        }
        _ = try await session.connect(appKey: TestServer.appKey)
        try await session.ping()
        try await session.disconnect()
    }
}
