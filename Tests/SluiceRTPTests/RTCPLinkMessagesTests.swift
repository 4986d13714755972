import Testing
@testable import SluiceRTP

/// The relay link's own RTCP APP messages (docs/cluster.md, "Link messages").
let linkStateBytes: [UInt8] = [
    0x81, 0xcc, 0x00, 0x07,  // V=2 subtype 1, PT=204 (APP), length 7 (32 bytes)
    0x00, 0x00, 0x00, 0x2a,  // sender SSRC
    0x53, 0x4c, 0x43, 0x45,  // "SLCE"
    0x00, 0x00, 0x00, 0x05,  // serial 5
    0x06, 0x01, 0x00, 0x00,  // flags: audio by server, video by publisher; one layer
    0x01, 0x40, 0x00, 0xb4,  // 320 x 180
    0x0b, 0xb8, 0x00, 0x01,  // 30.00 fps, active
    0x00, 0x00, 0x00, 0x96,  // 150 kbit/s
]

@Test func parsesAndSerializesLinkState() throws {
    let state = try #require(linkStateBytes.withUnsafeBytes { RTCPLinkState(parsing: $0) })
    #expect(state == RTCPLinkState(senderSSRC: 42, serial: 5, mute: [.audioByServer, .videoByPublisher],
                                   layers: [.init(width: 320, height: 180, fpsCenti: 3000, active: true, bitrateKbps: 150)]))
    #expect(serialize(size: state.serializedSize) { state.write(into: &$0) } == linkStateBytes)
}

@Test func linkStateRejectsOtherAppsAndBadLengths() {
    // Another application's name.
    #expect(mutating(linkStateBytes) { $0[8] = 0x58 }.withUnsafeBytes { RTCPLinkState(parsing: $0) } == nil)
    // The layer count says two, the packet holds one.
    #expect(mutating(linkStateBytes) { $0[17] = 2 }.withUnsafeBytes { RTCPLinkState(parsing: $0) } == nil)
    // The other subtype.
    #expect(mutating(linkStateBytes) { $0[0] = 0x82 }.withUnsafeBytes { RTCPLinkState(parsing: $0) } == nil)
    // More layers than a link carries.
    let many = RTCPLinkState(senderSSRC: 1, serial: 1, mute: [],
                             layers: Array(repeating: .init(width: 1, height: 1, fpsCenti: 1, active: false, bitrateKbps: 1), count: 9))
    let written = serialize(size: many.serializedSize) { many.write(into: &$0) }
    #expect(written?.count == 20 + 8 * 12)
    #expect(written.flatMap { $0.withUnsafeBytes { RTCPLinkState(parsing: $0) } }?.layers.count == 8)
}

@Test func parsesAndSerializesLinkLayers() throws {
    let request = RTCPLinkLayers(senderSSRC: 7, serial: 3, mask: 0b101)
    let bytes = try #require(serialize(size: request.serializedSize) { request.write(into: &$0) })
    #expect(bytes[0] == 0x82 && bytes[1] == 204)
    #expect(bytes.withUnsafeBytes { RTCPLinkLayers(parsing: $0) } == request)
    // A link state is not a layer request.
    #expect(linkStateBytes.withUnsafeBytes { RTCPLinkLayers(parsing: $0) } == nil)
}
