import Foundation
import SluiceVocabulary
import Testing
@testable import SluiceSDP

/// Offers captured from real stacks (see Offers/README.md).
enum Offers {
    static func text(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "sdp", subdirectory: "Offers"))
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func parsed(_ name: String) throws -> SessionDescription {
        try SessionDescription(parsing: text(name))
    }

    static let all = ["aiortc-publish", "aiortc-play", "chromium-publish", "chromium-publish-simulcast", "chromium-play"]
    static let publish = ["aiortc-publish", "chromium-publish", "chromium-publish-simulcast"]
    static let play = ["aiortc-play", "chromium-play"]
}

enum Server {
    static let fingerprint = "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99"
    static let candidates = [ServerCandidate(ip: "127.0.0.1", port: 10000), ServerCandidate(ip: "127.0.0.2", port: 10001)]

    static func parameters(_ role: StreamRole, publisher: PublisherCodecs? = nil) -> AnswerParameters {
        AnswerParameters(role: role, iceUfrag: "srvU", icePwd: "serverpasswordserverpass", fingerprint: fingerprint,
                         candidates: candidates, publisherCodecs: publisher, localStreamID: "stream1",
                         localAudio: role == .play ? LocalTrack(ssrc: 1111, trackID: "a0") : nil,
                         localVideo: role == .play ? LocalTrack(ssrc: 2222, rtxSSRC: 3333, trackID: "v0") : nil,
                         sessionID: 42)
    }
}
