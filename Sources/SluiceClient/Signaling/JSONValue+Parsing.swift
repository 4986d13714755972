import Foundation
// The SDK's signaling API takes and returns SluiceJSON's values (`custom`, event data,
// stats), the same type the server uses; re-exported so that `import SluiceClient` is all
// an app writes, as before the two values were one.
@_exported import SluiceJSON

extension JSONValue {
    /// Reads one JSON text with Foundation's JSONDecoder, through `JSONValue`'s Codable
    /// conformance: the SDK does not link jansson, which is the server's parser
    /// (SluiceJSONParser). Objects keep the order in which the decoder lists their keys,
    /// which Foundation does not promise to be the document's.
    public init(parsing text: String) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }
}
