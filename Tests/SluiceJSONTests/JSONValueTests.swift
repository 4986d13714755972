import Foundation
import SluiceJSON
import Testing

/// The value alone, as the client SDK sees it (no jansson): accessors, the integer/double
/// edge cases both sides rely on, key order, and Codable through Foundation.
@Suite struct JSONValueTests {
    /// One integer API for the server and the SDK: `Int64?`, lossless on every platform
    /// (a 32-bit watchOS `Int` would lose large stats counters), and a double with an exact
    /// integer value counts (`640.0`, as some clients write widths).
    @Test func intValueTakesIntegersAndExactDoubles() {
        #expect(JSONValue.int(7).intValue == 7)
        #expect(JSONValue.int(Int64.min).intValue == Int64.min)
        #expect(JSONValue.double(640.0).intValue == 640)
        #expect(JSONValue.double(-0.0).intValue == 0)
        #expect(JSONValue.double(1.5).intValue == nil)
        #expect(JSONValue.double(9.3e18).intValue == nil)  // beyond Int64
        #expect(JSONValue.double(-9.223372036854775808e18).intValue == Int64.min)
        #expect(JSONValue.double(.nan).intValue == nil)
        #expect(JSONValue.double(.infinity).intValue == nil)
        #expect(JSONValue.string("7").intValue == nil)
        #expect(JSONValue.bool(true).intValue == nil)
    }

    @Test func doubleValueTakesAnyNumber() {
        #expect(JSONValue.int(3).doubleValue == 3.0)
        #expect(JSONValue.double(2.5).doubleValue == 2.5)
        #expect(JSONValue.string("2.5").doubleValue == nil)
        #expect(JSONValue.int(3).isNumber && JSONValue.double(3).isNumber && !JSONValue.string("3").isNumber)
    }

    @Test func accessorsAnswerOnlyForTheirKind() {
        let value: JSONValue = ["s": "x", "b": false, "a": [1, nil], "o": ["k": 1], "n": nil]
        #expect(value["s"]?.stringValue == "x" && value["b"]?.stringValue == nil)
        #expect(value["b"]?.boolValue == false && value["s"]?.boolValue == nil)
        #expect(value["a"]?.arrayValue?.count == 2 && value["o"]?.arrayValue == nil)
        #expect(value["o"]?.objectValue?.keys == ["k"] && value["a"]?.objectValue == nil)
        #expect(value["n"]?.isNull == true && value["s"]?.isNull == false)
        #expect(value["a"]?[1] == .null && value["a"]?[2] == nil && value["a"]?[-1] == nil)
        #expect(value["missing"] == nil && value["s"]?["k"] == nil && value[0] == nil)
        #expect(value["o"]?.kindDescription == "an object" && value["a"]?[0]?.kindDescription == "a number")
    }

    @Test func initializersPickTheCase() {
        #expect(JSONValue(5) == .int(5))
        #expect(JSONValue(Int64(-5)) == .int(-5))
        #expect(JSONValue(UInt64.max) == .int(Int64.max))  // saturates
        #expect(JSONValue(0.5) == .double(0.5))
        #expect(JSONValue("s") == .string("s"))
        #expect(JSONValue(true) == .bool(true))
        #expect(JSONValue(JSONObject([("a", 1)])) == ["a": 1])
    }

    /// The server writes `jsonrpc`, then `id`, then `result`; the SDK writes what it builds
    /// in the order it builds it.
    @Test func objectsKeepTheOrderTheyWereBuiltIn() {
        var envelope: JSONObject = ["jsonrpc": "2.0", "id": 3]
        envelope["method"] = "publish"
        envelope["params"] = ["stream": "cam", "sdp": "v=0"]
        #expect(envelope.keys == ["jsonrpc", "id", "method", "params"])
        #expect(JSONValue.object(envelope).serialized()
                == #"{"jsonrpc":"2.0","id":3,"method":"publish","params":{"stream":"cam","sdp":"v=0"}}"#)
        // Replacing keeps the position; a later duplicate in a literal replaces the earlier value.
        envelope["jsonrpc"] = "2.0"
        #expect(envelope.keys.first == "jsonrpc")
        let literal: JSONValue = ["a": 1, "b": 2, "a": 3]
        #expect(literal.objectValue?.keys == ["a", "b"] && literal["a"] == 3)
    }

    @Test func codableRoundTripThroughFoundation() throws {
        let value: JSONValue = ["b": [1, 2.5, "s/t", nil, true], "a": ["nested": ["deep": -7]], "e": [:], "f": []]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(decoded == value)
        // Kinds stay distinct: an integer is not read as a boolean or a double.
        #expect(decoded["b"]?[0] == .int(1))
        #expect(decoded["b"]?[1] == .double(2.5))
        #expect(decoded["b"]?[4] == .bool(true))
        #expect(decoded["b"]?[3] == .null)
        // Inside a Codable type of an app's own.
        struct Envelope: Codable, Equatable { var name: String; var custom: JSONValue }
        let envelope = Envelope(name: "n", custom: ["room": 12, "tags": ["x"]])
        #expect(try JSONDecoder().decode(Envelope.self, from: JSONEncoder().encode(envelope)) == envelope)
    }

    @Test func codableReadsIntegersAndLimits() throws {
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(#"[9223372036854775807,-1,0.25,1e3]"#.utf8))
        #expect(decoded[0]?.intValue == Int64.max)
        #expect(decoded[1] == .int(-1))
        #expect(decoded[2] == .double(0.25))
        #expect(decoded[3]?.intValue == 1000)  // an integer, whichever case the decoder picked
    }

    @Test func equalityIgnoresKeyOrderButNotKind() {
        let one: JSONValue = ["a": 1, "b": [true]]
        let other: JSONValue = ["b": [true], "a": 1]
        #expect(one == other && one.hashValue == other.hashValue)
        #expect(JSONValue.int(1) != .double(1))
        #expect(one != ["a": 1, "b": [false]])
        #expect(one.description == #"{"a":1,"b":[true]}"#)
    }
}
