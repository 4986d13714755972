import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

@Suite struct ConstraintsParserTests {
    @Test(arguments: [
        ("{}", StreamConstraints()),
        (#"{"audio":false}"#, StreamConstraints(audio: false)),
        (#"{"audio":{"bitrate":32}}"#, StreamConstraints(audio: true, audioBitrateKbps: 32)),
        (#"{"video":false}"#, StreamConstraints(video: nil)),
        (#"{"video":true,"audio":true}"#, StreamConstraints()),
        (#"{"audio":null,"video":null,"other":1}"#, StreamConstraints()),
        (#"{"video":{"width":640,"height":360,"fps":30,"bitrate":800,"quality":"auto"}}"#,
         StreamConstraints(video: VideoConstraints(width: 640, height: 360, fps: 30, bitrateKbps: 800))),
        (#"{"video":{"minBitrate":100,"maxBitrate":2500.0}}"#,
         StreamConstraints(video: VideoConstraints(minBitrateKbps: 100, maxBitrateKbps: 2500))),
        (#"{"video":{"quality":"HIGH"}}"#, StreamConstraints(video: VideoConstraints(quality: .high))),
        (#"{"video":{"quality":"medium"}}"#, StreamConstraints(video: VideoConstraints(quality: .medium))),
        (#"{"video":{"quality":"low"}}"#, StreamConstraints(video: VideoConstraints(quality: .low))),
        (#"{"video":{"quality":100}}"#, StreamConstraints(video: VideoConstraints(quality: .high))),
        (#"{"video":{"quality":67}}"#, StreamConstraints(video: VideoConstraints(quality: .high))),
        (#"{"video":{"quality":66}}"#, StreamConstraints(video: VideoConstraints(quality: .medium))),
        (#"{"video":{"quality":34}}"#, StreamConstraints(video: VideoConstraints(quality: .medium))),
        (#"{"video":{"quality":33}}"#, StreamConstraints(video: VideoConstraints(quality: .low))),
        (#"{"video":{"quality":1}}"#, StreamConstraints(video: VideoConstraints(quality: .low))),
    ])
    func parses(_ text: String, _ expected: StreamConstraints) throws {
        #expect(try ConstraintsParser.parse(JSONValue.parse(text)) == expected)
    }

    @Test(arguments: [
        ("[]", "'constraints'"),
        (#"{"audio":1}"#, "'constraints.audio'"),
        (#"{"audio":{"bitrate":"32"}}"#, "'constraints.audio.bitrate'"),
        (#"{"video":"hd"}"#, "'constraints.video'"),
        (#"{"video":{"width":-1}}"#, "'constraints.video.width'"),
        (#"{"video":{"height":0}}"#, "'constraints.video.height'"),
        (#"{"video":{"fps":29.97}}"#, "'constraints.video.fps'"),
        (#"{"video":{"bitrate":1e12}}"#, "'constraints.video.bitrate'"),
        (#"{"video":{"minBitrate":900,"maxBitrate":100}}"#, "'constraints.video.minBitrate'"),
        (#"{"video":{"quality":0}}"#, "'constraints.video.quality'"),
        (#"{"video":{"quality":101}}"#, "'constraints.video.quality'"),
        (#"{"video":{"quality":50.5}}"#, "'constraints.video.quality'"),
        (#"{"video":{"quality":"ultra"}}"#, "'constraints.video.quality'"),
        (#"{"video":{"quality":true}}"#, "'constraints.video.quality'"),
    ])
    func rejects(_ text: String, _ field: String) throws {
        let value = try JSONValue.parse(text)
        do {
            _ = try ConstraintsParser.parse(value)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.code == -32602)
            #expect(error.message.contains(field), "\(error.message)")
        }
    }
}
