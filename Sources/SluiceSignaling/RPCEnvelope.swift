import SluiceJSON

/// One incoming message that passed envelope validation.
enum RPCEnvelope: Equatable {
    /// `id` is a number, a string or null, echoed back as given.
    case request(id: JSONValue, method: String, params: JSONObject?)
    /// No `id` member: never answered, never acted on.
    case notification(method: String)
}

/// Envelope validation failed; `id` is the request's when it could be read, else null.
struct RPCEnvelopeError: Error, Equatable {
    var id: JSONValue
    var error: RPCError
}

extension RPCEnvelope {
    /// Parses and validates one message (PROTOCOL.md "Which error wins", step 1 after the size).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(RPCEnvelopeError) -> RPCEnvelope {
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw RPCEnvelopeError(id: .null, error: .parseError(error.description))
        }
        return try validate(document)
    }

    static func validate(_ document: JSONValue) throws(RPCEnvelopeError) -> RPCEnvelope {
        guard case .object(let object) = document else {
            let detail = document.arrayValue != nil ? "batches are not supported" : "expected a JSON object"
            throw RPCEnvelopeError(id: .null, error: .invalidRequest(detail))
        }
        let id = object["id"]
        if let id {
            switch id {
            case .int, .double, .string, .null: break
            default:
                throw RPCEnvelopeError(id: .null, error: .invalidRequest("'id' must be a number, a string or null"))
            }
        }
        let replyID = id ?? .null
        guard object["jsonrpc"]?.stringValue == "2.0" else {
            throw RPCEnvelopeError(id: replyID, error: .invalidRequest("'jsonrpc' must be \"2.0\""))
        }
        guard let method = object["method"]?.stringValue else {
            throw RPCEnvelopeError(id: replyID, error: .invalidRequest("'method' must be a string"))
        }
        var params: JSONObject?
        if let value = object["params"] {
            guard case .object(let members) = value else {
                throw RPCEnvelopeError(id: replyID, error: .invalidRequest("'params' must be an object"))
            }
            params = members
        }
        guard let id else { return .notification(method: method) }
        return .request(id: id, method: method, params: params)
    }
}

/// Outgoing messages.
enum RPCMessage {
    static func result(id: JSONValue, _ result: JSONValue) -> String {
        JSONValue.object(["jsonrpc": "2.0", "id": id, "result": result]).serialized()
    }

    static func error(id: JSONValue, _ error: RPCError) -> String {
        JSONValue.object(["jsonrpc": "2.0", "id": id, "error": error.json]).serialized()
    }

    static func notification(_ method: String, _ params: JSONObject) -> String {
        JSONValue.object(["jsonrpc": "2.0", "method": .string(method), "params": .object(params)]).serialized()
    }
}
