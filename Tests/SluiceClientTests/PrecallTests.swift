import Foundation
import SluiceClient
import SluiceTestMedia
import Testing

/// The pre-call test from the Swift SDK through a real in-process server: the SDK's own
/// PeerConnection sends synthetic VP8 and Opus over ICE, DTLS and SRTP on 127.0.0.1, and the
/// server's report comes back as `streamEvent`s read with `PrecallUpdate`.
@Suite(.serialized) struct PrecallTests {
    @Test func aReportOfTheUplinkFromSyntheticMedia() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (session, log) = try await server.connectedSession()
        // The SDK's publishing PeerConnection offers sendonly: the server measures what it
        // receives; with no probe to receive, the downlink and the RTT stay unmeasured.
        let connection = try PeerConnection(configuration: .init(role: .publish))
        defer { connection.close() }
        let source = SyntheticPublisher(video: .init(width: 320, height: 240, fps: 30, bitrateKbps: 400,
                                                     keyFrameIntervalSeconds: 1))
        connection.delegate = source
        let answer = try await session.precall(sdp: connection.localDescription, seconds: 3)
        #expect(answer.handle.hasPrefix("precall-"))
        try await connection.setRemoteDescription(answer.sdp)
        try await connection.waitUntilConnected()

        let final = try await log.first(within: 15) { notification in
            guard case .streamEvent(let event) = notification, event.handle == answer.handle,
                  let update = PrecallUpdate(event) else { return false }
            return update.isFinal
        }
        guard case .streamEvent(let event) = final, case .report(let report)? = PrecallUpdate(event) else {
            throw ClientTestError("no report: \(final)")
        }
        #expect(event.stream == "")
        let progress = log.all.compactMap { n -> PrecallFigures? in
            guard case .streamEvent(let e) = n, e.handle == answer.handle, case .progress(let f)? = PrecallUpdate(e) else { return nil }
            return f
        }
        #expect(progress.count >= 2, "a progress event each second of 3: \(progress)")
        #expect(report.durationMs >= 3000 && report.durationMs <= 10_000)
        // The source sends about 400 kbit/s of video and Opus; the reading is of what arrived.
        let uplink = try #require(report.figures.uplinkKbps)
        #expect(uplink > 200 && uplink < 2000, "uplink \(uplink)")
        #expect((report.figures.lossUp ?? 1) < 0.05)
        #expect(report.figures.downlinkKbps == nil && report.figures.rttMs == nil)
        #expect(report.publish.map { Double($0.bitrate) <= uplink } == true)
        #expect(report.playQuality == nil)
        // The handle ended by itself.
        await #expect(throws: SluiceRPCError.self) { try await session.stop(handle: answer.handle) }
    }

    @Test func aBadOfferIsRefusedAndNothingRuns() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (session, _) = try await server.connectedSession()
        await #expect(throws: SluiceRPCError.self) { _ = try await session.precall(sdp: "v=0\r\n") }
        await #expect(throws: SluiceRPCError.self) { _ = try await session.precall(sdp: "v=0\r\n", seconds: 11) }
        try await session.ping()
    }
}
