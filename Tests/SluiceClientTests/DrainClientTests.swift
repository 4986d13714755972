import Foundation
@testable import SluiceClient
import SluiceServer
import Testing

/// A draining server as the Swift SDK sees it: the `serverDraining` notice, 1017 for what would
/// start, and the successor session on the URL the app gives, where everything works.
@Suite(.serialized) struct DrainClientTests {
    @Test func theNoticeThe1017AndTheMoveToAnotherServer() async throws {
        let old = try TestServer { $0.drainSeconds = 30 }
        defer { old.shutdown() }
        let replacement = try TestServer()
        defer { replacement.shutdown() }
        let (session, log) = try await old.connectedSession()

        #expect(old.server.drain() == 30)
        let notice = try await log.first { if case .serverDraining = $0 { return true } else { return false } }
        guard case .serverDraining(let draining) = notice else { throw ClientTestError("unreachable") }
        #expect(draining.deadlineMs > 25_000 && draining.deadlineMs <= 30_000)
        #expect(draining.servers.isEmpty)

        let refused = await #expect(throws: SluiceRPCError.self) {
            _ = try await session.play(stream: "cam", sdp: "v=0\r\n")
        }
        #expect(refused?.code == SluiceRPCError.Code.serverDraining)
        #expect(refused?.reason == "SERVER_DRAINING")
        #expect(session.successor(for: draining) == nil, "no URL given and no other node")

        let target = try #require(URL(string: "ws://127.0.0.1:\(replacement.port)/ws"))
        let next = try #require(session.successor(for: draining, url: target))
        #expect(next.url == target)
        try await next.open()
        #expect(try await !next.connect(appKey: TestServer.appKey).sessionId.isEmpty)
        try await session.disconnect()
        #expect(await eventually { old.server.isDrained })
        try await next.disconnect()
    }

    @Test func theNoticeIsRead() {
        let notice = SluiceNotification(method: "serverDraining",
                                        params: ["deadlineMs": 1500, "servers": ["ws://127.0.0.3:8080/ws"]])
        #expect(notice == .serverDraining(ServerDraining(deadlineMs: 1500, servers: [URL(string: "ws://127.0.0.3:8080/ws")!])))
        guard case .other = SluiceNotification(method: "serverDraining", params: ["servers": []]) else {
            Issue.record("a notice without deadlineMs was read")
            return
        }
    }
}
