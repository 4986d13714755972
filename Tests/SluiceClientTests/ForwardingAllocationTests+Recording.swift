import Foundation
import SluiceClient
import SluiceRecord
import Testing
@testable import SluiceServer

/// Hot-path rule 1 with a recording: the recorded stream's home worker also copies every
/// packet into the recording's ring (`RecordingTap`); the recorder thread, which reassembles
/// and writes, is not on the packet path and is not counted. In the serialized suite of the
/// other allocation tests: the malloc counters are the process's.
extension ForwardingAllocationTests {
    @Test(.enabled(if: ForwardingAllocationTests.isOptimized, "run with swift test -c release"))
    func recordedForwardingAllocatesNothingPerPacket() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-alloc-rec-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestServer { config in config.recording = RecordingSettings(folder: folder) }
        defer { server.shutdown() }
        let (publisher, source) = try await AllocationRun.publish(on: server, record: true)
        defer { publisher.close(); withExtendedLifetime(source) {} }
        let players = try await AllocationRun.play(on: server, count: 3)
        defer { for (player, _) in players { player.close() } }
        let window = try await AllocationRun.measure(players: players, worker: server.server.media.workers[0])
        // The recording is being written meanwhile: its `.part` is there and growing.
        let parts = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".webm.part") }
        print("forwarding allocations with a recording: \(window.allocations) in Sluice, \(window.inLibsrtp) in libsrtp, "
              + "over \(window.forwarded) packets forwarded to 3 players")
        #expect(parts.count == 1, "the stream is not being recorded: \(parts)")
        #expect(window.forwarded > 300, "too little media flowed to measure (\(window.forwarded) packets)")
        #expect(window.allocations == 0, "\(window.allocations) heap allocations while forwarding \(window.forwarded) packets")
    }
}
