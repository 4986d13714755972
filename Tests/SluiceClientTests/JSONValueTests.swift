@testable import SluiceClient
import Testing

struct JSONValueTests {
    @Test func parsesTypesDistinctly() throws {
        let value = try JSONValue(parsing: #"{"a":1,"b":1.5,"c":true,"d":null,"e":"x","f":[1,"y"],"g":{"h":false}}"#)
        #expect(value["a"] == .int(1))
        #expect(value["b"] == .double(1.5))
        #expect(value["c"] == .bool(true))
        #expect(value["d"] == .null)
        #expect(value["e"]?.stringValue == "x")
        #expect(value["f"]?[1] == "y")
        #expect(value["g"]?["h"]?.boolValue == false)
        #expect(value["a"]?.intValue == 1 && value["b"]?.intValue == nil && value["b"]?.doubleValue == 1.5)
        #expect(value["missing"] == nil)
    }

    /// The SDK writes with the server's serializer: keys in the order they were set.
    @Test func serializesInOrderAndRoundTrips() throws {
        let value: JSONValue = ["b": [1, 2.5, "s/t", nil], "a": ["nested": true]]
        let text = value.serialized()
        #expect(text == #"{"b":[1,2.5,"s/t",null],"a":{"nested":true}}"#)
        #expect(try JSONValue(parsing: text) == value)
    }

    @Test func notificationsParseIntoTypedValues() {
        let status = SluiceNotification(method: "streamStatus", params: [
            "handle": "h1", "stream": "cam", "role": "play", "status": "PLAYING"])
        #expect(status == .streamStatus(StreamStatusUpdate(handle: "h1", stream: "cam", role: .play, status: .playing)))
        let event = SluiceNotification(method: "streamEvent", params: [
            "handle": "h1", "stream": "cam", "type": "resize", "by": "publisher", "data": ["width": 640, "height": 360]])
        #expect(event == .streamEvent(StreamEvent(handle: "h1", stream: "cam", type: .resize, by: "publisher",
                                                  data: ["width": 640, "height": 360])))
        // A role this client does not know, and a method it does not model, come as `other`.
        let odd = SluiceNotification(method: "streamStatus", params: ["handle": "h", "stream": "s", "role": "relay", "status": "X"])
        #expect(odd == .other(method: "streamStatus", params: ["handle": "h", "stream": "s", "role": "relay", "status": "X"]))
        #expect(SluiceNotification(method: "future", params: nil) == .other(method: "future", params: nil))
    }

    @Test func constraintsSerializeAsTheProtocolSays() throws {
        let constraints = StreamConstraints(audio: .off, video: .limits(TrackLimits(width: 640, height: 360, quality: .level(70))))
        #expect(constraints.json.serialized() == #"{"audio":false,"video":{"width":640,"height":360,"quality":70}}"#)
        #expect(StreamConstraints(video: .limits(TrackLimits(quality: .low))).json.serialized() == #"{"video":{"quality":"low"}}"#)
    }
}
