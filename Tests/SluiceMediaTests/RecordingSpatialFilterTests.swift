import SluiceRTP
import Testing
@testable import SluiceMedia

/// An SVC stream's recording takes one spatial layer (`RecordingSpatialFilter`): chosen by
/// `recording.layer` among the measured spatial layers once the structure is known, then per
/// packet the frames of that layer's target, the marker on the end of its frames, and
/// sequence numbers without the gaps of the frames left out. Frames come from VP9 payload
/// descriptors in K-SVC (`VP9Dependency`), as the producer reads them.
struct RecordingSpatialFilterTests {
    /// One packet per layer frame of picture `picture`; the source's marker on layer 2's.
    private func packet(sid: UInt8, picture: UInt8) -> [UInt8] {
        let key = picture == 0
        var flags: UInt8 = 0xac  // I, L, B, E
        if !key { flags |= 0x40 }
        if key && sid == 0 { flags |= 0x02 }
        if !key && sid < 2 { flags |= 0x01 }  // Z
        var payload: [UInt8] = [flags, picture, sid << 1 | (key && sid > 0 ? 1 : 0), picture]
        if key && sid == 0 {
            payload.append(2 << 5 | 0x10)
            for (w, h) in [(320, 180), (640, 360), (1280, 720)] {
                payload += [UInt8(w >> 8), UInt8(w & 0xff), UInt8(h >> 8), UInt8(h & 0xff)]
            }
        }
        let sequence = 500 + UInt16(picture) * 3 + UInt16(sid)
        let timestamp = UInt32(picture) * 3000
        return [0x80, (sid == 2 ? 0x80 : 0) | 98, UInt8(sequence >> 8), UInt8(sequence & 0xff),
                UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xff), UInt8(timestamp >> 8 & 0xff), UInt8(timestamp & 0xff),
                0, 0, 0, 1] + payload + [0x82, 0x49]
    }

    @Test(arguments: [(RecordedLayer.low, UInt8(0)), (.middle, 1), (.top, 2)])
    func theFileGetsOneSpatialLayerNumberedWithoutGaps(_ requested: RecordedLayer, _ expected: UInt8) throws {
        var reader = VP9Dependency()
        var table = DependencyTemplateTable()
        var frames: [(bytes: [UInt8], frame: DependencyFrame)] = []
        for picture: UInt8 in 0..<3 {
            for sid: UInt8 in 0..<3 {
                var bytes = packet(sid: sid, picture: picture)
                let frame = try bytes.withUnsafeMutableBytes { raw -> DependencyFrame in
                    let rtp = try #require(RTPPacket(parsing: raw))
                    let payload = UnsafeRawBufferPointer(rtp.payload)
                    let descriptor = try #require(VP9PayloadDescriptor(parsing: payload))
                    return try #require(reader.frame(descriptor, payload: payload, timestamp: rtp.timestamp, table: &table))
                }
                frames.append((bytes, frame))
            }
        }
        let source = TestSource(layers: [LayerSelector.Layer(index: 0, width: 1280, height: 720)])
        source.targets = DependencyTargets(table)
        source.spatial = [LayerSelector.Layer(index: 0, width: 320, height: 180, bitrateKbps: 100),
                          LayerSelector.Layer(index: 1, width: 640, height: 360, bitrateKbps: 300),
                          LayerSelector.Layer(index: 2, width: 1280, height: 720, bitrateKbps: 1200)]
        let router = Router(stream: "s")
        router.attach(source)
        var filter = RecordingSpatialFilter()
        #expect(filter.choose(requested, upstream: router) && filter.spatial == Int(expected))

        var admitted: [(sid: UInt8, sequence: UInt16, marker: Bool)] = []
        for (bytes, frame) in frames {
            var copy = bytes
            copy.withUnsafeMutableBytes { raw in
                let rtp = RTPPacket(parsing: raw)!
                if let (sequence, marker) = filter.admit(frame, packet: rtp, upstream: router) {
                    admitted.append((frame.spatialID, sequence, marker))
                }
            }
        }
        // The key picture's layers up to the chosen one (K-SVC: the upper ones use the lower
        // there), then the chosen layer alone.
        let expectedLayers = Array(0...expected) + [expected, expected]
        #expect(admitted.map(\.sid) == expectedLayers, "\(admitted)")
        #expect(admitted.filter(\.marker).map(\.sid) == [expected, expected, expected])
        #expect(admitted.map(\.sequence) == Array(500..<(500 + UInt16(admitted.count))), "numbered without gaps")
    }

    @Test func aStreamWithoutSpatialLayersIsRecordedWhole() {
        let source = TestSource(layers: [LayerSelector.Layer(index: 0, width: 1280, height: 720)])
        let router = Router(stream: "s")
        router.attach(source)
        var filter = RecordingSpatialFilter()
        #expect(!filter.choose(.low, upstream: router) && !filter.decided, "no structure yet: undecided")
        var table = DependencyTemplateTable()
        table.load(DependencyStructure(templateIDOffset: 0, decodeTargetCount: 1, templates: [
            FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: [.switchPoint])]),
                   tail: UnsafeRawBufferPointer(start: nil, count: 0))
        source.targets = DependencyTargets(table)
        #expect(filter.choose(.low, upstream: router) && filter.recordsWhole)
    }
}
