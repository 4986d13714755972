import Testing
@testable import SluiceTransport

@Suite struct ICEUfragKeyTests {
    @Test func bytesAndStringKeysMatch() throws {
        let fromString = try #require(ICEUfragKey("evtj"))
        let fromRequest = try RFC5769.request.withUnsafeBytes { raw in
            ICEUfragKey(try #require(try STUNMessage(parsing: raw).usernameLocalFragment))
        }
        #expect(fromRequest == fromString)
        #expect(fromString.description == "evtj")
        let table: [ICEUfragKey: Int] = [fromString: 1]
        #expect(table[try #require(fromRequest)] == 1)
    }

    @Test func distinguishesLengthAndContent() {
        #expect(ICEUfragKey("abc") != ICEUfragKey("abcd"))
        #expect(ICEUfragKey("abcd") != ICEUfragKey("abce"))
        #expect(ICEUfragKey("") == ICEUfragKey(""))
        #expect(ICEUfragKey(String(repeating: "x", count: 32)) != nil)
        #expect(ICEUfragKey(String(repeating: "x", count: 33)) == nil)
    }
}
