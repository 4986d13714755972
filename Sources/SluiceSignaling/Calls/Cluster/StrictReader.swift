import SluiceCalls
import SluiceJSON
import SluiceJSONParser

/// A JSON value read from another node, with the path it came from, so that every check names
/// the member it failed on ("messages[2].call.caller"). Each getter checks one member's type
/// and bounds, or throws.
struct StrictReader {
    typealias DecodingError = ClusterCallJSON.DecodingError
    let value: JSONValue
    let location: String

    init(_ value: JSONValue, path: String) {
        self.value = value
        location = path
    }

    init(parsing bytes: [UInt8]) throws(DecodingError) {
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw DecodingError(field: "", problem: "The body is not valid JSON: \(error)")
        }
        location = ""
        guard value.objectValue != nil else {
            throw DecodingError(field: "", problem: "The body must be a JSON object, not \(value.kindDescription)")
        }
    }

    func path(_ key: String) -> String { location.isEmpty ? key : "\(location).\(key)" }

    func has(_ key: String) -> Bool {
        guard let member = value.objectValue?[key] else { return false }
        return !member.isNull
    }

    private func member(_ key: String) throws(DecodingError) -> JSONValue {
        guard let member = value.objectValue?[key], !member.isNull else {
            throw DecodingError(field: path(key), problem: "is required")
        }
        return member
    }

    func object(_ key: String) throws(DecodingError) -> StrictReader {
        try StrictReader(member(key), path: path(key)).asObject()
    }

    /// This value (an array's element) as an object.
    func asObject() throws(DecodingError) -> StrictReader {
        guard value.objectValue != nil else {
            throw DecodingError(field: location, problem: "must be an object, not \(value.kindDescription)")
        }
        return self
    }

    func array(_ key: String, count: ClosedRange<Int>) throws(DecodingError) -> [StrictReader] {
        guard let items = try member(key).arrayValue, count.contains(items.count) else {
            throw DecodingError(field: path(key), problem: "must be an array of \(count.lowerBound) to \(count.upperBound) items")
        }
        return items.enumerated().map { StrictReader($0.element, path: "\(path(key))[\($0.offset)]") }
    }

    func bool(_ key: String) throws(DecodingError) -> Bool {
        guard let flag = try member(key).boolValue else { throw DecodingError(field: path(key), problem: "must be true or false") }
        return flag
    }

    func integer(_ key: String, range: ClosedRange<Int64>) throws(DecodingError) -> Int64 {
        guard let number = try member(key).intValue, range.contains(number) else {
            throw DecodingError(field: path(key), problem: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Printable text of `bytes` UTF-8 bytes, without control characters.
    func text(_ key: String, bytes: ClosedRange<Int>) throws(DecodingError) -> String {
        guard let text = try member(key).stringValue, bytes.contains(text.utf8.count),
              !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw DecodingError(field: path(key), problem: "must be text of \(bytes.lowerBound) to \(bytes.upperBound) bytes without control characters")
        }
        return text
    }

    func oneOf(_ key: String, _ words: [String]) throws(DecodingError) -> String {
        guard let word = try member(key).stringValue, words.contains(word) else {
            throw DecodingError(field: path(key), problem: "must be one of \(words.joined(separator: ", "))")
        }
        return word
    }

    func raw<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(DecodingError) -> T where T.RawValue == String {
        T(rawValue: try oneOf(key, T.allCases.map(\.rawValue)))!
    }

    func side(_ key: String) throws(DecodingError) -> CallSide { try raw(key, CallSide.self) }

    /// A user name, as `call {to}` takes it.
    func user(_ key: String) throws(DecodingError) -> String {
        guard let name = try member(key).stringValue, CallParamsCheck.isValidUser(name) else {
            throw DecodingError(field: path(key), problem: "must be 1 to 128 characters from [A-Za-z0-9._~@-]")
        }
        return name
    }

    /// A call id: 32 lower-case hex digits.
    func callID(_ key: String) throws(DecodingError) -> String {
        guard let id = try member(key).stringValue, id.utf8.count == 32, id.utf8.allSatisfy(Self.isLowerHex) else {
            throw DecodingError(field: path(key), problem: "must be a call id of 32 lower-case hex digits")
        }
        return id
    }

    /// A session id: 32 lower-case hex digits, as `connect` makes them.
    func sessionID(_ key: String) throws(DecodingError) -> String {
        guard let id = try member(key).stringValue, id.utf8.count == 32, id.utf8.allSatisfy(Self.isLowerHex) else {
            throw DecodingError(field: path(key), problem: "must be a session id of 32 lower-case hex digits")
        }
        return id
    }

    func optionalToken(_ key: String) throws(DecodingError) -> String? {
        guard has(key) else { return nil }
        return try text(key, bytes: 1...64)
    }

    func nodeID(_ key: String) throws(DecodingError) -> String {
        try StrictReader(member(key), path: path(key)).nodeIDValue()
    }

    /// This value as a `cluster.nodeId`: 1 to 64 letters, digits, '.', '_', '-'.
    func nodeIDValue() throws(DecodingError) -> String {
        guard let text = value.stringValue, (1...64).contains(text.utf8.count), text.utf8.allSatisfy(Self.isNodeByte) else {
            throw DecodingError(field: location, problem: "must be a node id: 1 to 64 letters, digits, '.', '_' or '-'")
        }
        return text
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }

    private static func isNodeByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == 0x2E || byte == 0x5F || byte == 0x2D
    }
}
