import Testing
@testable import SluiceControl

struct PrecallRecommendationTests {
    @Test(arguments: [
        (4000.0, 1280, 2500), (3000.0, 1280, 2500), (2000.0, 960, 1500), (1000.0, 640, 800),
        (700.0, 480, 500), (300.0, 320, 200), (150.0, 320, 87), (40.0, 320, 40),
    ])
    func aRungThatFits(uplink: Double, width: Int, bitrate: Int) throws {
        let publish = try #require(PrecallRecommendation(uplinkKbps: uplink, downlinkKbps: nil).publish)
        #expect(publish.width == width && publish.bitrate == bitrate)
        #expect(Double(publish.bitrate) <= uplink, "never over the uplink")
    }

    @Test func playQualityFollowsTheDownlink() {
        #expect(PrecallRecommendation(uplinkKbps: nil, downlinkKbps: 3000).playQuality == "high")
        #expect(PrecallRecommendation(uplinkKbps: nil, downlinkKbps: 1000).playQuality == "medium")
        #expect(PrecallRecommendation(uplinkKbps: nil, downlinkKbps: 300).playQuality == "low")
        let none = PrecallRecommendation(uplinkKbps: nil, downlinkKbps: nil)
        #expect(none.publish == nil && none.playQuality == nil)
    }
}
