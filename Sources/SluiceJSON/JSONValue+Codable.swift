/// Codable through the standard library's protocols alone, so any encoder or decoder reads
/// and writes the value: the client SDK uses Foundation's JSONEncoder and JSONDecoder (on
/// Apple platforms and Linux), and an app can embed a `JSONValue` in its own Codable types.
/// The server does not go through Codable: it parses with jansson (SluiceJSONParser) and
/// writes with `serialized()`.
extension JSONValue: Codable {
    /// Tries the kinds in a fixed order: a boolean before a number (a decoder that bridges
    /// through NSNumber might read `true` as 1), an integer before a double, so `7` stays
    /// `.int(7)` and `1.5` becomes `.double(1.5)`.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode(JSONObject.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// Members are encoded in the object's order and decoded in the order the decoder lists its
/// keys. Foundation's JSONDecoder does not promise document order, so an object read through
/// Codable may come back in another order; `==` ignores order, and `serialized()` writes
/// whatever order the object holds.
extension JSONObject: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: MemberKey.self)
        self.init()
        for key in container.allKeys {
            self[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (key, value) in self {
            try container.encode(value, forKey: MemberKey(key))
        }
    }
}

/// Any member name as a coding key.
struct MemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
