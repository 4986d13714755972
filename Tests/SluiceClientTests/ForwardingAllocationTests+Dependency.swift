import Foundation
import SluiceClient
import Testing

/// Hot-path rule 1 with the dependency descriptor (docs/protocol.md section 6, **SVC**): the
/// publisher sends one with every video packet (its structure with each key frame), the
/// producer reads it against the layer's template table, each player's forwarder follows its
/// decode target by it, and the sender writes it after the other extensions. In the serialized
/// suite of the other allocation tests: the malloc counters are the process's.
extension ForwardingAllocationTests {
    @Test(.enabled(if: ForwardingAllocationTests.isOptimized, "run with swift test -c release"))
    func dependencyDescriptorForwardingAllocatesNothingPerPacket() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (publisher, source) = try await AllocationRun.publish(on: server, dependencyDescriptor: true)
        defer { publisher.close(); withExtendedLifetime(source) {} }
        let players = try await AllocationRun.play(on: server, count: 3, dependencyDescriptor: true)
        defer { for (player, _) in players { player.close() } }
        let window = try await AllocationRun.measure(players: players, worker: server.server.media.workers[0])
        #expect(publisher.sendsDependencyDescriptor, "the publisher was not answered the dependency descriptor")
        // Every player's video came with the descriptor: the server read it and wrote it out.
        for (_, recorder) in players {
            #expect(recorder.describedVideo > 0 && recorder.describedVideo == Int(recorder.video.packets),
                    "\(recorder.describedVideo) of \(recorder.video.packets) video packets had the descriptor")
        }
        print("forwarding allocations with the dependency descriptor: \(window.allocations) in Sluice, "
              + "\(window.inLibsrtp) in libsrtp, over \(window.forwarded) packets forwarded to 3 players")
        #expect(window.forwarded > 300, "too little media flowed to measure (\(window.forwarded) packets)")
        #expect(window.allocations == 0, "\(window.allocations) heap allocations while forwarding \(window.forwarded) packets")
    }
}
