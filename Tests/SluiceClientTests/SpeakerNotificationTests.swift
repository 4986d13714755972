import SluiceJSON
import Testing
@testable import SluiceClient

/// `activeSpeakers` and `dominantSpeaker` as the Swift SDK reads them; a malformed one stays `.other`.
struct SpeakerNotificationTests {
    @Test func activeSpeakersAndTheDominantOne() {
        let active = SluiceNotification(method: "activeSpeakers", params: [
            "speakers": [["name": "room1-a", "level": -21.5], ["name": "room1-b", "level": -40], ["level": 1]]])
        #expect(active == .activeSpeakers([ActiveSpeaker(name: "room1-a", level: -21.5),
                                           ActiveSpeaker(name: "room1-b", level: -40)]))
        #expect(SluiceNotification(method: "dominantSpeaker", params: ["name": "room1-a"]) == .dominantSpeaker("room1-a"))
        #expect(SluiceNotification(method: "dominantSpeaker", params: ["name": .null]) == .dominantSpeaker(nil))
    }

    @Test func malformedOnesStayOther() {
        for (method, params) in [("activeSpeakers", ["speakers": "x"] as JSONValue), ("dominantSpeaker", ["name": 5]),
                                 ("dominantSpeaker", [:])] {
            guard case .other(let name, _) = SluiceNotification(method: method, params: params) else {
                Issue.record("\(method) \(params) was read")
                continue
            }
            #expect(name == method)
        }
    }
}
