import SluiceJSON

/// Reads one JSON object of the config, checking types and ranges, and refusing keys it
/// does not know (a misspelt key would otherwise be ignored in silence).
struct ConfigReader {
    let path: String
    let object: JSONObject
    private let known: Set<String>

    init(_ value: JSONValue?, path: String, known: Set<String>) throws(ConfigError) {
        self.path = path
        self.known = known
        guard let value else {
            object = JSONObject()
            return
        }
        guard let object = value.objectValue else {
            throw ConfigError(key: path, problem: "must be an object")
        }
        self.object = object
        for key in object.keys where !known.contains(key) {
            throw ConfigError(key: name(key), problem: "is not a known setting (known: \(known.sorted().joined(separator: ", ")))")
        }
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func string(_ key: String, default fallback: String, allowed: Set<String>? = nil) throws(ConfigError) -> String {
        guard let value = object[key] else { return fallback }
        guard let string = value.stringValue else {
            throw ConfigError(key: name(key), problem: "must be a string, not \(value.kindDescription)")
        }
        if let allowed, !allowed.contains(string) {
            throw ConfigError(key: name(key), problem: "must be one of \(allowed.sorted().joined(separator: ", ")), not \"\(string)\"")
        }
        return string
    }

    func int(_ key: String, default fallback: Int, range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let value = object[key] else { return fallback }
        guard let number = value.intValue else {
            throw ConfigError(key: name(key), problem: "must be an integer, not \(value.kindDescription)")
        }
        guard range.contains(Int(number)) else {
            throw ConfigError(key: name(key), problem: "must be between \(range.lowerBound) and \(range.upperBound), not \(number)")
        }
        return Int(number)
    }

    func bool(_ key: String, default fallback: Bool) throws(ConfigError) -> Bool {
        guard let value = object[key] else { return fallback }
        guard let flag = value.boolValue else {
            throw ConfigError(key: name(key), problem: "must be true or false, not \(value.kindDescription)")
        }
        return flag
    }

    func strings(_ key: String, default fallback: [String]) throws(ConfigError) -> [String] {
        guard let value = object[key] else { return fallback }
        guard let array = value.arrayValue else {
            throw ConfigError(key: name(key), problem: "must be an array of strings, not \(value.kindDescription)")
        }
        var result: [String] = []
        for (i, item) in array.enumerated() {
            guard let string = item.stringValue else {
                throw ConfigError(key: "\(name(key))[\(i)]", problem: "must be a string, not \(item.kindDescription)")
            }
            result.append(string)
        }
        return result
    }

    func child(_ key: String, known: Set<String>) throws(ConfigError) -> ConfigReader {
        try ConfigReader(object[key], path: name(key), known: known)
    }
}
