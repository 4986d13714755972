import Foundation
import SluiceClient
import Testing

/// Hot-path rule 1 with Opus RED: the publisher sends RED (it offered it and was answered RED
/// first), two players that offered RED get it whole and one that did not gets the primary
/// alone; the producer parses each RED packet once. In the serialized suite of the other
/// allocation tests: the malloc counters are the process's.
extension ForwardingAllocationTests {
    @Test(.enabled(if: ForwardingAllocationTests.isOptimized, "run with swift test -c release"))
    func redForwardingAllocatesNothingPerPacket() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let (publisher, source) = try await AllocationRun.publish(on: server, audioRED: true)
        defer { publisher.close(); withExtendedLifetime(source) {} }
        let players = try await AllocationRun.play(on: server, count: 3, audioRED: [true, true, false])
        defer { for (player, _) in players { player.close() } }
        let window = try await AllocationRun.measure(players: players, worker: server.server.media.workers[0])
        // Answered RED first, the publisher sends RED; every player (RED or not) got 100 audio
        // packets before the window (`measure`), so the server parsed it and sent it both ways.
        #expect(publisher.sendsAudioRED, "the publisher was not answered RED")
        print("forwarding allocations with Opus RED: \(window.allocations) in Sluice, \(window.inLibsrtp) in libsrtp, "
              + "over \(window.forwarded) packets forwarded to 3 players (2 with RED, 1 stripped)")
        #expect(window.forwarded > 300, "too little media flowed to measure (\(window.forwarded) packets)")
        #expect(window.allocations == 0, "\(window.allocations) heap allocations while forwarding \(window.forwarded) packets")
    }
}
