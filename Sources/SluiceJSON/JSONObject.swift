/// A JSON object: unique keys in insertion order. Lookups go through an index, so large
/// hostile objects do not make every member access linear.
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var keys: [String] = []
    private var values: [JSONValue] = []
    private var index: [String: Int] = [:]

    public init() {}

    public init(_ members: [(String, JSONValue)]) {
        for (key, value) in members { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// Setting an existing key replaces its value in place; setting nil removes the key.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = index[key] else { return nil }
            return values[position]
        }
        set {
            if let position = index[key] {
                if let newValue {
                    values[position] = newValue
                } else {
                    remove(at: position)
                }
            } else if let newValue {
                index[key] = keys.count
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    private mutating func remove(at position: Int) {
        index[keys[position]] = nil
        keys.remove(at: position)
        values.remove(at: position)
        for later in position..<keys.count { index[keys[later]] = later }
    }

    public struct Iterator: IteratorProtocol {
        private let object: JSONObject
        private var position = 0

        init(_ object: JSONObject) { self.object = object }

        public mutating func next() -> (key: String, value: JSONValue)? {
            guard position < object.keys.count else { return nil }
            defer { position += 1 }
            return (object.keys[position], object.values[position])
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    /// Equal when both hold the same keys with equal values, whatever their order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.keys.count == rhs.keys.count else { return false }
        for (position, key) in lhs.keys.enumerated() {
            guard let other = rhs.index[key], lhs.values[position] == rhs.values[other] else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with ==.
        var combined = 0
        for (position, key) in keys.enumerated() {
            var member = Hasher()
            member.combine(key)
            member.combine(values[position])
            combined ^= member.finalize()
        }
        hasher.combine(keys.count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }
}
