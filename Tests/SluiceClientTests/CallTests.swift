import Foundation
import SluiceClient
import Testing
@testable import SluiceServer

/// The Swift SDK's call methods against a real server: rings, statuses and the call log.
@Suite struct CallTests {
    static func server() throws -> TestServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-client-calls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try TestServer { config in
            config.apps[0].trustClientUser = true
            config.callDatabase = folder.appendingPathComponent("calls.db").path
        }
    }

    static func user(_ server: TestServer, _ name: String) async throws -> (SluiceSession, NotificationLog) {
        let (session, log) = try await server.openSession()
        let result = try await session.connect(appKey: TestServer.appKey, user: name)
        #expect(result.identity == name)
        return (session, log)
    }

    static func status(_ log: NotificationLog, _ callId: String, _ status: CallStatus) async throws -> CallStatusUpdate {
        let match = try await log.first { n in
            if case .callStatus(let s) = n { return s.callId == callId && s.status == status }
            return false
        }
        guard case .callStatus(let update) = match else { throw ClientTestError("unreachable") }
        return update
    }

    @Test func ringAcceptHangUpAndTheLog() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let (alice, aliceLog) = try await Self.user(server, "alice")
        let (bob, bobLog) = try await Self.user(server, "bob")
        defer { alice.close(); bob.close() }
        #expect(try await alice.onlineUsers() == ["alice", "bob"])

        let callId = try await alice.call(to: "bob", video: true, audio: false, custom: ["topic": "sdk"])
        let ring = try await bobLog.first { n in
            if case .incomingCall(let call) = n { return call.callId == callId }
            return false
        }
        guard case .incomingCall(let incoming) = ring else { throw ClientTestError("unreachable") }
        #expect(incoming.from == "alice" && incoming.video && !incoming.audio)
        #expect(incoming.custom?["topic"]?.stringValue == "sdk")
        _ = try await Self.status(aliceLog, callId, .ringing)

        let (streams, answer) = try await bob.accept(callId: callId)
        #expect(answer == nil)
        let connecting = try await Self.status(aliceLog, callId, .connecting)
        #expect(connecting.streams == CallStreams(publish: streams.play, play: streams.publish))

        do {
            try await alice.decline(callId: callId)
            Issue.record("the caller declined")
        } catch let error as SluiceRPCError {
            #expect(error.code == 1015)
        }
        try await bob.hangup(callId: callId)
        for log in [aliceLog, bobLog] {
            let ended = try await Self.status(log, callId, .ended)
            #expect(ended.endResult == .completed && ended.by == "bob")
        }
        server.server.callLog?.flush()
        let page = try await alice.callLog(limit: 5)
        let entry = try #require(page.calls.first)
        #expect(entry.callId == callId && entry.caller == "alice" && entry.callee == "bob")
        #expect(entry.endResult == .completed && entry.endedBy == "bob" && entry.answeredAt != nil)
        #expect(page.nextCursor == nil)
    }
}
