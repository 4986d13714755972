import SluiceJSON
import SluiceJSONParser

/// One incoming message that passed envelope validation.
enum RPCEnvelope: Equatable {
    /// `id` is a number, a string or null, echoed back as given.
    case request(id: JSONValue, method: String, params: RPCParams)
    /// No `id` member: never answered, never acted on.
    case notification(method: String)
}

/// Envelope validation failed; `id` is the request's when it could be read, else null.
struct RPCEnvelopeError: Error, Equatable {
    var id: JSONValue
    var error: RPCError
    /// False for a JSON object without an `id` member: a notification, however malformed,
    /// gets no reply (docs/protocol.md "Client notifications"); the error is only logged.
    var answered = true
}

extension RPCEnvelope {
    /// Parses and validates one message (docs/protocol.md "Which error wins", step 1 after the size).
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
        func invalid(_ detail: String) -> RPCEnvelopeError {
            RPCEnvelopeError(id: id ?? .null, error: .invalidRequest(detail), answered: id != nil)
        }
        guard object["jsonrpc"]?.stringValue == "2.0" else { throw invalid("'jsonrpc' must be \"2.0\"") }
        guard let method = object["method"]?.stringValue else { throw invalid("'method' must be a string") }
        let params: RPCParams
        switch object["params"] {
        case nil: params = RPCParams(nil)
        case .object(let members): params = RPCParams(members)
        case .array: params = .positional
        default: throw invalid("'params' must be an object")
        }
        guard let id else { return .notification(method: method) }
        return .request(id: id, method: method, params: params)
    }

    /// The id to answer a message with when it must be refused before it is handled (rate
    /// limit, hook backlog): the request's, null when it cannot be read, nil for a message
    /// that is not answered at all (a notification, valid or not).
    static func replyID(for bytes: UnsafeRawBufferPointer) -> JSONValue? {
        // JSONValue takes `nil` as JSON null, so "no reply" is spelled `.none`.
        do {
            switch try parse(bytes) {
            case .request(let id, _, _): return .some(id)
            case .notification: return .none
            }
        } catch {
            return error.answered ? .some(error.id) : .none
        }
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
