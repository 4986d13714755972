import Testing
@testable import SluiceSDP

@Suite struct H264ProfileLevelIDTests {
    @Test(arguments: [
        ("42e01f", H264ProfileLevelID.Profile.constrainedBaseline, 31),
        ("42001f", .baseline, 31),
        ("42c01e", .constrainedBaseline, 30),
        ("4d001f", .main, 31),
        ("4d801f", .constrainedBaseline, 31),
        ("58c01f", .constrainedBaseline, 31),
        ("58801f", .baseline, 31),
        ("580028", .extended, 40),
        ("640c1f", .constrainedHigh, 31),
        ("640033", .high, 51),
        ("6e0028", .high10, 40),
        ("F40032", .high444, 50),
    ])
    func profiles(text: String, profile: H264ProfileLevelID.Profile, level: Int) throws {
        let id = try #require(H264ProfileLevelID(text))
        #expect(id.profile == profile)
        #expect(Int(id.levelIDC) == level)
        #expect(id.text == text.lowercased())
    }

    @Test(arguments: ["", "42e01", "42e01f0", "zze01f", "43001f", "640100", "+42e01"])
    func rejects(text: String) {
        #expect(H264ProfileLevelID(text) == nil)
    }

    @Test func absentMeansBaselineLevel1() throws {
        let id = try #require(H264ProfileLevelID(parameters: [FormatParameter(name: "packetization-mode", value: "1")]))
        #expect(id.profile == .baseline && id.levelIDC == 0x10)
    }

    @Test func levelCap() throws {
        let high = try #require(H264ProfileLevelID("42e033"))
        let low = try #require(H264ProfileLevelID("42001f"))
        #expect(high.withLevel(atMost: low).text == "42e01f")
        #expect(low.withLevel(atMost: high).text == "42001f")
        let level1b = try #require(H264ProfileLevelID("42f00b"))
        #expect(level1b.levelOrder == 105)
        #expect(high.withLevel(atMost: level1b).text == "42f00b")
    }
}
