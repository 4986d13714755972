import Foundation
import SluiceClient
import Testing

/// Hot-path rule 1 with the dependency descriptor (docs/protocol.md section 6, **SVC**): the
/// publisher sends one with every video packet (`L1T3`, its structure with each key frame),
/// the producer reads it against the layer's template table, each player's forwarder follows
/// its decode target by it, and the sender writes it after the other extensions. One player
/// asks for 15 fps: it gets two of the three temporal layers, and its descriptors go out with
/// their active decode targets rewritten. In the serialized suite of the other allocation
/// tests: the malloc counters are the process's.
extension ForwardingAllocationTests {
    @Test(.enabled(if: ForwardingAllocationTests.isOptimized, "run with swift test -c release"))
    func dependencyDescriptorForwardingAllocatesNothingPerPacket() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (publisher, source) = try await AllocationRun.publish(on: server, dependencyDescriptor: true)
        defer { publisher.close(); withExtendedLifetime(source) {} }
        let capped = StreamConstraints(video: .limits(TrackLimits(fps: 15)))
        let players = try await AllocationRun.play(on: server, count: 3, dependencyDescriptor: true,
                                                   constraints: [nil, capped, nil])
        defer { for (player, _) in players { player.close() } }
        let window = try await AllocationRun.measure(players: players, worker: server.server.media.workers[0])
        #expect(publisher.sendsDependencyDescriptor, "the publisher was not answered the dependency descriptor")
        // Every player's video came with the descriptor: the server read it and wrote it out.
        for (_, recorder) in players {
            #expect(recorder.describedVideo > 0 && recorder.describedVideo == Int(recorder.video.packets),
                    "\(recorder.describedVideo) of \(recorder.video.packets) video packets had the descriptor")
        }
        // The capped player got about half the frames (and packets): its forwarder followed its target.
        let packets = players.map { $0.1.video.packets }
        #expect(packets[1] * 3 < packets[0] * 2, "the 15 fps player got \(packets[1]) video packets, another \(packets[0])")
        // Its frames' first packets named its two targets; the others' descriptors went as they came.
        #expect(players.map { $0.1.activeTargetsVideo > 0 } == [false, true, false])
        print("forwarding allocations with the dependency descriptor: \(window.allocations) in Sluice, "
              + "\(window.inLibsrtp) in libsrtp, over \(window.forwarded) packets forwarded to 3 players")
        #expect(window.forwarded > 300, "too little media flowed to measure (\(window.forwarded) packets)")
        #expect(window.allocations == 0, "\(window.allocations) heap allocations while forwarding \(window.forwarded) packets")
    }
}
