import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// Typed access to a request's params; every failure is -32602 naming the field.
struct RPCParams: Equatable {
    let members: JSONObject
    /// Given as an array: a valid JSON-RPC 2.0 envelope, but every method here takes named
    /// params (`requireNamed`).
    let isPositional: Bool

    init(_ members: JSONObject?) {
        self.members = members ?? JSONObject()
        isPositional = false
    }

    private init(positional: Void) {
        members = JSONObject()
        isPositional = true
    }

    static let positional = RPCParams(positional: ())

    func requireNamed() throws(RPCError) {
        if isPositional { throw .invalidParams("'params' must be an object") }
    }

    func requiredString(_ name: String) throws(RPCError) -> String {
        guard let value = members[name] else { throw .invalidParams("'\(name)' is required") }
        guard let text = value.stringValue else { throw .invalidParams("'\(name)' must be a string") }
        return text
    }

    func optionalString(_ name: String) throws(RPCError) -> String? {
        guard let value = members[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalidParams("'\(name)' must be a string") }
        return text
    }

    func optionalBool(_ name: String, default fallback: Bool) throws(RPCError) -> Bool {
        guard let value = members[name], !value.isNull else { return fallback }
        guard let flag = value.boolValue else { throw .invalidParams("'\(name)' must be a boolean") }
        return flag
    }

    func optionalObject(_ name: String) throws(RPCError) -> JSONObject? {
        guard let value = members[name], !value.isNull else { return nil }
        guard let object = value.objectValue else { throw .invalidParams("'\(name)' must be an object") }
        return object
    }

    /// A non-empty SDP offer.
    func sdp() throws(RPCError) -> String {
        let text = try requiredString("sdp")
        guard !text.isEmpty else { throw .invalidParams("'sdp' must not be empty") }
        return text
    }

    func streamName() throws(RPCError) -> String {
        let name = try requiredString("stream")
        guard RPCParams.isValidStreamName(name) else {
            throw .invalidParams("'stream' must be 1 to 128 characters from [A-Za-z0-9._~-]")
        }
        return name
    }

    /// Any value is accepted here; whether the server knows it is an application error (1007),
    /// answered after the other params are checked. A handle that is not a string ("whatever
    /// its form", docs/protocol.md "Handles") goes on as the empty string, which no handle is.
    func handle() throws(RPCError) -> StreamHandle {
        guard let value = members["handle"] else { throw .invalidParams("'handle' is required") }
        return value.stringValue ?? ""
    }

    func kind() throws(RPCError) -> MediaKind {
        let text = try requiredString("kind")
        guard let kind = MediaKind(rawValue: text) else {
            throw .invalidParams("'kind' must be \"audio\" or \"video\"")
        }
        return kind
    }

    /// Absent constraints mean the defaults (audio and video, no caps).
    func constraints(required: Bool = false) throws(RPCError) -> StreamConstraints {
        guard let value = members["constraints"], !value.isNull else {
            if required { throw .invalidParams("'constraints' is required") }
            return StreamConstraints()
        }
        return try ConstraintsParser.parse(value)
    }

    static func isValidStreamName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
