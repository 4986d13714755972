@testable import SluiceControl
import SluiceDataChannel
import SluiceSDP
import SluiceVocabulary
import Testing

/// Data channel endpoints as the engine makes them (a client's from its negotiated m-line,
/// a relay link's ends), and the stack's events to their handles' sessions. The SCTP stack
/// itself is not started: no endpoint is opened.
@Suite(.serialized) final class DataChannelRoutesTests {
    let parts: ControlParts
    let routes: DataChannelRoutes

    init() throws {
        parts = try ControlParts()
        routes = DataChannelRoutes(registry: parts.registry, outbox: parts.outbox)
    }

    deinit { parts.stop() }

    static let negotiated = NegotiatedDataChannel(mid: "2", remoteSCTPPort: 5001, remoteMaxMessageSize: 65536,
                                                  localSCTPPort: 5000, localMaxMessageSize: 262_144)

    @Test func aClientsEndpointNeedsItsMLineAndItsAppsRules() throws {
        #expect(routes.endpoint(nil, policy: DataChannelPolicy(), handle: "play-1", session: "s", stream: "cam",
                                role: .play) == nil)
        #expect(routes.endpoint(Self.negotiated, policy: nil, handle: "play-1", session: "s", stream: "cam",
                                role: .play) == nil)
        var outOfRange = Self.negotiated
        outOfRange.remoteSCTPPort = 70000
        #expect(routes.endpoint(outOfRange, policy: DataChannelPolicy(), handle: "play-1", session: "s", stream: "cam",
                                role: .play) == nil)
        let endpoint = try #require(routes.endpoint(Self.negotiated, policy: DataChannelPolicy(), handle: "play-1",
                                                    session: "s", stream: "cam", role: .play))
        #expect(endpoint.scope == routes.scope && endpoint.localPort == 5000 && endpoint.remotePort == 5001)
        #expect(endpoint.maxMessageSize == 262_144 && endpoint.remoteMaxMessageSize == 65536 && endpoint.relay == .none)
    }

    /// The stack serves every server in the process: each engine's endpoints have a scope of
    /// their own.
    @Test func eachEngineHasAScopeOfItsOwn() {
        let other = DataChannelRoutes(registry: parts.registry, outbox: parts.outbox)
        #expect(other.scope != routes.scope)
    }

    /// A link's end is no session's: its handle stands for one, and it takes a client's
    /// largest message either way.
    @Test func aRelayEndpointTakesAClientsLargestMessage() {
        let endpoint = routes.relayEndpoint(handle: "link-1", stream: "cam", role: .publish, relay: .edge,
                                            policy: DataChannelPolicy(messagesPerSecond: 0, bytesPerSecond: 0))
        #expect(endpoint.session == "link-1" && endpoint.relay == .edge && endpoint.scope == routes.scope)
        #expect(endpoint.localPort == 5000 && endpoint.remotePort == 5000)
        #expect(endpoint.maxMessageSize == DataChannelRoutes.relayMessageBytes
                && endpoint.remoteMaxMessageSize == DataChannelRoutes.relayMessageBytes)
    }

    /// What the stack reports (on its thread) reaches the handle's session at the next drain;
    /// a handle that ended meanwhile hears nothing.
    @Test func theStacksEventsReachTheHandlesSession() throws {
        parts.play("cam", handle: "play-1", wait: true, dataChannels: true)
        _ = parts.events()
        let endpoint = try #require(routes.endpoint(Self.negotiated, policy: DataChannelPolicy(), handle: "play-1",
                                                    session: "s2", stream: "cam", role: .play))
        endpoint.report(.opened(handle: "play-1", label: "chat", id: 1))
        endpoint.report(.closed(handle: "play-gone", label: "chat", id: 1))
        #expect(routes.queuedEvents == 2)
        routes.drainEvents()
        #expect(routes.queuedEvents == 0)
        let told = parts.streamEvents()
        #expect(told.count == 1 && told[0].handle == "play-1" && told[0].type == "dataChannelOpened")
        #expect(told.first?.data == ["label": .string("chat"), "id": .int(1)])
    }

    @Test func statsOnlyForHandlesWithChannels() {
        parts.play("cam", handle: "play-1", wait: true)
        #expect(routes.stats(handle: "play-1").isEmpty && routes.stats(handle: "play-x").isEmpty)
        #expect(routes.allStats().isEmpty)
    }
}
