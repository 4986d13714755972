import CJansson
import SluiceJSON

extension JSONValue {
    /// Parses one JSON text of any type. Duplicate object keys are rejected (a reader that
    /// keeps the first and one that keeps the last would disagree), as are trailing data,
    /// invalid UTF-8, integers outside Int64 and nesting deeper than
    /// jansson's limit of 2048.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        var error = json_error_t()
        // \u0000 is valid JSON (RFC 8259); strings are read with their length, so it stays in.
        let flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL
        // json_loadb reads nothing for an empty buffer, but wants a valid pointer.
        var empty: UInt8 = 0
        let root: UnsafeMutablePointer<json_t>? = withUnsafePointer(to: &empty) { emptyPointer in
            let base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(emptyPointer)
            return json_loadb(base.assumingMemoryBound(to: CChar.self), bytes.count, Int(flags), &error)
        }
        guard let root else { throw JSONError(jansson: error) }
        defer { json_decref(root) }
        return JSONValue(jansson: root)
    }

    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONError> = text.withUTF8 { utf8 in
            do throws(JSONError) {
                return .success(try parse(UnsafeRawBufferPointer(utf8)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBytes { raw in
            do throws(JSONError) {
                return .success(try parse(raw))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Converts a jansson tree; recursion depth is bounded by jansson's parse depth limit.
    init(jansson node: UnsafeMutablePointer<json_t>) {
        switch node.pointee.type {
        case JSON_OBJECT:
            var object = JSONObject()
            var iterator = json_object_iter(node)
            while let current = iterator {
                if let key = json_object_iter_key(current), let value = json_object_iter_value(current) {
                    let keyLength = json_object_iter_key_len(current)
                    let keyText = key.withMemoryRebound(to: UInt8.self, capacity: keyLength) {
                        String(decoding: UnsafeBufferPointer(start: $0, count: keyLength), as: UTF8.self)
                    }
                    // jansson rejected duplicates already, so this always appends.
                    object[keyText] = JSONValue(jansson: value)
                }
                iterator = json_object_iter_next(node, current)
            }
            self = .object(object)
        case JSON_ARRAY:
            let count = json_array_size(node)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for position in 0..<count {
                if let element = json_array_get(node, position) {
                    elements.append(JSONValue(jansson: element))
                }
            }
            self = .array(elements)
        case JSON_STRING:
            let length = json_string_length(node)
            if let chars = json_string_value(node) {
                self = .string(chars.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                })
            } else {
                self = .string("")
            }
        case JSON_INTEGER:
            self = .int(Int64(json_integer_value(node)))
        case JSON_REAL:
            self = .double(json_real_value(node))
        case JSON_TRUE:
            self = .bool(true)
        case JSON_FALSE:
            self = .bool(false)
        default:
            self = .null
        }
    }
}
