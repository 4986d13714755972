import SluiceRTP
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// VP9 SVC without the dependency descriptor, end to end through the forwarder: packets whose
/// VP9 payload descriptors `VP9Dependency` reads (as the producer does), in K-SVC (lower layers
/// marked Z between key pictures) and full SVC, non-flexible and flexible mode. A player of the
/// middle spatial layer gets its layer's frames, the lower one where the layer above uses it,
/// never the top; the marker ends each of its pictures; its sequence runs unbroken.
struct ForwarderVP9Tests {
    struct Mode: CustomTestStringConvertible, Sendable {
        var full: Bool
        var flexible: Bool
        var testDescription: String { (full ? "full SVC" : "K-SVC") + (flexible ? ", flexible" : ", non-flexible") }
    }

    /// One packet per layer frame; the source's marker on the top layer's.
    private func packet(sid: UInt8, picture: UInt8, key: Bool, mode: Mode) -> [UInt8] {
        var flags: UInt8 = 0x80 | 0x20 | 0x08 | 0x04  // I, L, B, E
        if !key { flags |= 0x40 }
        if mode.flexible { flags |= 0x10 }
        let withStructure = key && sid == 0
        if withStructure { flags |= 0x02 }
        if !key && !mode.full && sid < 2 { flags |= 0x01 }  // Z: K-SVC's layer above does not use it
        var payload: [UInt8] = [flags, picture, sid << 1 | (sid > 0 && (key || mode.full) ? 1 : 0)]
        if !mode.flexible { payload.append(picture) }
        if mode.flexible && !key { payload.append(1 << 1) }
        if withStructure {
            payload.append(2 << 5 | 0x10)
            for (w, h) in [(320, 180), (640, 360), (1280, 720)] {
                payload += [UInt8(w >> 8), UInt8(w & 0xff), UInt8(h >> 8), UInt8(h & 0xff)]
            }
        }
        payload += [0x82, 0x49]
        let sequence = UInt16(picture) * 3 + UInt16(sid)
        let timestamp = UInt32(picture) * 3000
        return [0x80, (sid == 2 ? 0x80 : 0) | 98, UInt8(sequence >> 8), UInt8(sequence & 0xff),
                UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xff), UInt8(timestamp >> 8 & 0xff), UInt8(timestamp & 0xff),
                0, 0, 0, 1] + payload
    }

    @Test(arguments: [Mode(full: false, flexible: false), Mode(full: true, flexible: false),
                      Mode(full: false, flexible: true), Mode(full: true, flexible: true)])
    func theMiddlePlayerGetsItsLayerAndWhatItUses(_ mode: Mode) throws {
        var reader = VP9Dependency()
        var table = DependencyTemplateTable()
        var forwarder = Forwarder(audio: nil, video: Forwarder.Track(enabled: true, initialSequence: 100, initialTimestamp: 0),
                                  rewritesVP8: false)
        forwarder.choosesSpatialLayers = true
        forwarder.targetSpatial = 1
        var sent: [(sid: UInt8, sequence: UInt16, marker: Bool)] = []
        for picture: UInt8 in 0..<3 {
            for sid: UInt8 in 0..<3 {
                var bytes = packet(sid: sid, picture: picture, key: picture == 0, mode: mode)
                try bytes.withUnsafeMutableBytes { raw in
                    let rtp = try #require(RTPPacket(parsing: raw))
                    let payload = UnsafeRawBufferPointer(rtp.payload)
                    let descriptor = try #require(VP9PayloadDescriptor(parsing: payload))
                    let frame = try #require(reader.frame(descriptor, payload: payload, timestamp: rtp.timestamp, table: &table))
                    if forwarder.wantedTarget < 0 {
                        // What the consumer does once the source's structure is known.
                        forwarder.targets = DependencyTargets(table)
                        forwarder.wantedTarget = forwarder.targets.target(spatialID: 1, temporalID: 255)
                    }
                    var item = ForwardedPacket(packet: rtp, kind: .video, layer: 0, isKeyFrame: picture == 0,
                                               temporalLayer: frame.temporalID, vp8: nil, clockRate: 90_000,
                                               audioLevel: nil, now: 1_000_000)
                    item.dependency = frame
                    if case .forward(let rewrite) = forwarder.decide(item, captureMicros: { _, _ in nil }) {
                        sent.append((sid, rewrite.sequence, rtp.marker || rewrite.setsMarker))
                    }
                }
            }
        }
        // Key picture: layers 0 and 1. Then layer 1, with layer 0 only where full SVC uses it.
        let expected: [UInt8] = mode.full ? [0, 1, 0, 1, 0, 1] : [0, 1, 1, 1]
        #expect(sent.map(\.sid) == expected, "\(sent)")
        #expect(sent.filter(\.marker).map(\.sid) == [1, 1, 1], "the marker ends each picture on layer 1: \(sent)")
        #expect(sent.map(\.sequence) == Array(100..<(100 + UInt16(sent.count))))
    }
}
