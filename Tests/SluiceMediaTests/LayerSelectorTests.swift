import Testing
@testable import SluiceMedia

/// Three layers as Chromium sends them for a 1280x720 camera (q, h, f).
private let layers = [
    LayerSelector.Layer(index: 0, width: 320, height: 180, fps: 30, bitrateKbps: 150),
    LayerSelector.Layer(index: 1, width: 640, height: 360, fps: 30, bitrateKbps: 500),
    LayerSelector.Layer(index: 2, width: 1280, height: 720, fps: 30, bitrateKbps: 1500),
]

struct LayerSelectorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var constraints: VideoConstraints
        var bandwidth: Double?
        var current: Int?
        var layer: Int
        var reason: LayerSelector.Reason
        var notEnough = false
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "no constraints: top", constraints: .init(), bandwidth: nil, layer: 2, reason: .constraints),
        Case(name: "quality high", constraints: .init(quality: .high), bandwidth: nil, layer: 2, reason: .constraints),
        Case(name: "quality medium", constraints: .init(quality: .medium), bandwidth: nil, layer: 1, reason: .constraints),
        Case(name: "quality low", constraints: .init(quality: .low), bandwidth: nil, layer: 0, reason: .constraints),
        Case(name: "bounding box 640x360", constraints: .init(width: 640, height: 360), bandwidth: nil, layer: 1, reason: .constraints),
        Case(name: "width only", constraints: .init(width: 700), bandwidth: nil, layer: 1, reason: .constraints),
        Case(name: "height only", constraints: .init(height: 200), bandwidth: nil, layer: 0, reason: .constraints),
        Case(name: "box smaller than every layer: lowest", constraints: .init(width: 100, height: 100), bandwidth: nil, layer: 0, reason: .constraints),
        Case(name: "bitrate cap", constraints: .init(bitrateKbps: 600), bandwidth: nil, layer: 1, reason: .constraints),
        Case(name: "medium within a box", constraints: .init(width: 640, height: 360, quality: .medium), bandwidth: nil, layer: 0, reason: .constraints),
        Case(name: "auto follows bandwidth", constraints: .init(quality: .auto), bandwidth: 800, layer: 1, reason: .bandwidth),
        Case(name: "auto climbs only with headroom", constraints: .init(quality: .auto), bandwidth: 1600, current: 1, layer: 1, reason: .bandwidth),
        Case(name: "auto stays without headroom", constraints: .init(quality: .auto), bandwidth: 1600, current: 2, layer: 2, reason: .constraints),
        Case(name: "auto climbs with headroom", constraints: .init(quality: .auto), bandwidth: 2000, current: 1, layer: 2, reason: .constraints),
        Case(name: "high pinned unless bandwidth cannot carry it", constraints: .init(quality: .high), bandwidth: 400, current: 2, layer: 0, reason: .bandwidth),
        Case(name: "not even the lowest fits", constraints: .init(), bandwidth: 100, current: 0, layer: 0, reason: .bandwidth, notEnough: true),
    ])
    func chooses(_ c: Case) throws {
        let choice = try #require(LayerSelector.choose(layers: layers, constraints: c.constraints,
                                                       bandwidthKbps: c.bandwidth, current: c.current))
        #expect(choice.layer == c.layer)
        #expect(choice.reason == c.reason)
        #expect(choice.notEnoughBandwidth == c.notEnough)
    }

    @Test func ordersByResolutionNotIndex() throws {
        // A publisher that lists its encodings high to low.
        let reversed = [
            LayerSelector.Layer(index: 0, width: 1280, height: 720, bitrateKbps: 1500),
            LayerSelector.Layer(index: 1, width: 320, height: 180, bitrateKbps: 150),
        ]
        #expect(LayerSelector.choose(layers: reversed, constraints: .init(quality: .low), bandwidthKbps: nil)?.layer == 1)
        #expect(LayerSelector.choose(layers: reversed, constraints: .init(quality: .high), bandwidthKbps: nil)?.layer == 0)
    }

    @Test func inactiveLayersAreSkipped() throws {
        var paused = layers
        paused[2].active = false
        #expect(LayerSelector.choose(layers: paused, constraints: .init(), bandwidthKbps: nil)?.layer == 1)
        #expect(LayerSelector.choose(layers: paused.map { var l = $0; l.active = false; return l },
                                     constraints: .init(), bandwidthKbps: nil) == nil)
    }

    @Test func singleLayerAlwaysChosen() throws {
        let one = [LayerSelector.Layer(index: 0, width: 640, height: 480, bitrateKbps: 800)]
        for quality in [VideoConstraints.Quality.low, .medium, .high, .auto] {
            #expect(LayerSelector.choose(layers: one, constraints: .init(quality: quality), bandwidthKbps: nil)?.layer == 0)
        }
    }
}

struct TemporalLayerLimitTests {
    @Test(arguments: [
        (nil as Int?, 30.0, 3, UInt8(255)),  // no cap
        (30, 30.0, 1, 255),                  // no temporal layers: nothing to drop
        (30, 30.0, 3, 2),                    // the cap allows every layer
        (15, 30.0, 3, 1),                    // half rate: TL0 and TL1
        (10, 30.0, 3, 0),                    // 7.5 fps is the lowest step
        (5, 30.0, 3, 0),                     // below the lowest step: still TL0
        (15, 30.0, 2, 0),                    // two layers: TL0 is half rate
    ])
    func limits(cap: Int?, fps: Double, layers: Int, expected: UInt8) {
        #expect(Forwarder.temporalLayerLimit(fpsCap: cap, timing: (fps, layers)) == expected)
    }
}
