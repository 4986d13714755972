import SluiceJSON
import SluiceJSONParser
import Testing

/// The server's parser (jansson) and serializer, and their round trip.
@Suite struct JSONParserTests {
    @Test func parsesEveryKindAndKeepsKeyOrder() throws {
        let value = try JSONValue.parse(#"{"z":1,"a":[true,false,null],"m":{"s":"x\u00e9\n"},"d":-2.5,"big":9223372036854775807}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["z", "a", "m", "d", "big"])
        #expect(value["z"] == .int(1))
        #expect(value["a"]?[0] == true)
        #expect(value["a"]?[1]?.boolValue == false)
        #expect(value["a"]?[2]?.isNull == true)
        #expect(value["a"]?[3] == nil)
        #expect(value["m"]?["s"]?.stringValue == "xé\n")
        #expect(value["d"]?.doubleValue == -2.5)
        #expect(value["d"]?.intValue == nil)
        #expect(value["big"]?.intValue == Int64.max)
        #expect(value["missing"] == nil)
        #expect(value["z"]?["nested"] == nil)
    }

    @Test func parsesScalarsAtTopLevel() throws {
        #expect(try JSONValue.parse("3") == 3)
        #expect(try JSONValue.parse("\"s\"") == "s")
        #expect(try JSONValue.parse("null") == .null)
        #expect(try JSONValue.parse("640.0").intValue == 640)
        // \u0000 is valid JSON and stays in the string, as does what follows it.
        #expect(try JSONValue.parse(#"{"a":"x\u0000y"}"#)["a"]?.stringValue == "x\u{0}y")
    }

    @Test(arguments: [
        ("", "end of file"),
        ("{", "end of file"),
        (#"{"a":1,"a":2}"#, "duplicate"),
        (#"{"a":1} x"#, "end of file expected"),
        ("[1,]", "unexpected token"),
        ("99999999999999999999", "too big"),
        ("{\n  \"a\": tru\n}", "invalid token"),
    ])
    func rejectsBadDocuments(_ input: String, _ fragment: String) {
        #expect(throws: JSONError.self) { try JSONValue.parse(input) }
        do {
            _ = try JSONValue.parse(input)
        } catch {
            #expect(error.text.lowercased().contains(fragment.lowercased()), "\(error)")
        }
    }

    @Test func errorsCarryLineAndColumn() {
        do {
            _ = try JSONValue.parse("{\n  \"a\": tru\n}")
            Issue.record("parsed")
        } catch {
            #expect(error.line == 2)
            #expect(error.column > 0)
            #expect(error.description.contains("line 2"))
        }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: JSONError.self) { try JSONValue.parse(bytes) }
    }

    @Test func nestingDepthIsLimited() throws {
        let shallow = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        #expect(try JSONValue.parse(shallow).arrayValue?.count == 1)
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { try JSONValue.parse(deep) }
    }

    @Test func serializesCompactlyInOrder() {
        let value: JSONValue = ["jsonrpc": "2.0", "id": 7, "result": ["b": [1, 2.5, true, nil], "a": "x"]]
        #expect(value.serialized() == #"{"jsonrpc":"2.0","id":7,"result":{"b":[1,2.5,true,null],"a":"x"}}"#)
    }

    @Test func escapesStrings() {
        let value = JSONValue.string("q\"b\\n\nt\tc\u{01}é😀/")
        #expect(value.serialized() == #""q\"b\\n\nt\tc\u0001é😀/""#)
    }

    @Test func doublesUseTheShortestForm() {
        #expect(JSONValue(812.3).serialized() == "812.3")
        #expect(JSONValue(0.1).serialized() == "0.1")
        #expect(JSONValue(3.0).serialized() == "3.0")
        #expect(JSONValue(1e-7).serialized() == "1e-07")
        #expect(JSONValue(Double.nan).serialized() == "null")
        #expect(JSONValue(-Double.infinity).serialized() == "null")
    }

    @Test(arguments: [
        #"{"a":[1,-2,3.25,1e300,-0.0,"\u001f\"\\",{}],"b":{"c":null,"d":[[]]},"e":"日本"}"#,
        #"[-9223372036854775808,9223372036854775807,5e-324,1.7976931348623157e308]"#,
        #""\ud83d\ude00""#,
    ])
    func roundTrips(_ text: String) throws {
        let value = try JSONValue.parse(text)
        let again = try JSONValue.parse(value.serialized())
        #expect(again == value)
        #expect(again.serialized() == value.serialized())
    }

    @Test func objectEditingAndEquality() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = nil
        object["a"] = 10
        object["d"] = 4
        #expect(object.keys == ["a", "c", "d"])
        #expect(object["c"] == 3)
        #expect(object.count == 3)
        let reordered: JSONObject = ["d": 4, "c": 3, "a": 10]
        #expect(object == reordered)
        #expect(object.hashValue == reordered.hashValue)
        #expect(object != ["a": 10, "c": 3, "d": 5])
        #expect(JSONValue.int(1) != JSONValue.double(1))
        #expect(Array(object.map(\.key)) == ["a", "c", "d"])
    }
}
