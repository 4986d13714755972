import SluiceControl
import SluiceJSON
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing
import SluiceLog

/// A manually advanced monotonic clock.
final class TestClock: @unchecked Sendable {
    var micros: UInt64 = 1_000_000
    func advance(seconds: Double) { micros += UInt64(seconds * 1_000_000) }
}

final class Harness {
    let media = FakeMediaControl()
    let clock = TestClock()
    let manager: SessionManager
    private var sessionCounter = 0

    init(configure: (inout SignalingConfig) -> Void = { _ in }) {
        var config = SignalingConfig(apps: [.init(key: "demo")], serverVersion: "9.9.9")
        configure(&config)
        let clock = self.clock
        var counter = 0
        manager = SessionManager(config: config, media: media, log: Log(level: .error),
                                 clock: { clock.micros },
                                 makeSessionID: { counter += 1; return "s\(counter)" })
    }

    func open() -> (RPCSession, RecordingOutput) {
        let output = RecordingOutput()
        return (manager.open(output: output), output)
    }

    /// An open session that completed `connect`, with its output cleared.
    func connected() -> (RPCSession, RecordingOutput) {
        let (session, output) = open()
        manager.receive(#"{"jsonrpc":"2.0","id":0,"method":"connect","params":{"appKey":"demo"}}"#, from: session)
        output.removeAll()
        return (session, output)
    }

    func request(_ id: Int, _ method: String, _ params: JSONValue? = nil) -> String {
        var object: JSONObject = ["jsonrpc": "2.0", "id": JSONValue(id), "method": .string(method)]
        if let params { object["params"] = params }
        return JSONValue.object(object).serialized()
    }
}

struct PrecedenceCase: Sendable, CustomStringConvertible {
    var name: String
    var connected: Bool
    var message: String
    var code: Int64
    var id: JSONValue
    var messageContains: String = ""

    var description: String { name }
}

let offer = "v=0\\r\\no=- 1 1 IN IP4 127.0.0.1\\r\\n"

let precedenceCases: [PrecedenceCase] = [
    PrecedenceCase(name: "oversize beats everything", connected: false,
                   message: #"{"jsonrpc":"2.0","id":1,"method":"ping","pad":""# + String(repeating: "x", count: 600) + #""}"#,
                   code: -32600, id: .null, messageContains: "exceeds"),
    PrecedenceCase(name: "bad JSON", connected: true, message: #"{"jsonrpc":"2.0","id":1,"#, code: -32700, id: .null),
    PrecedenceCase(name: "unterminated object", connected: true, message: "{\"a\":\"\u{FFFD}\"", code: -32700, id: .null),
    PrecedenceCase(name: "batch", connected: true, message: #"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                   code: -32600, id: .null, messageContains: "batch"),
    PrecedenceCase(name: "wrong jsonrpc keeps the id", connected: true, message: #"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
                   code: -32600, id: 2, messageContains: "jsonrpc"),
    PrecedenceCase(name: "object id", connected: true, message: #"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                   code: -32600, id: .null, messageContains: "'id'"),
    PrecedenceCase(name: "method not a string", connected: true, message: #"{"jsonrpc":"2.0","id":"x","method":5}"#,
                   code: -32600, id: "x", messageContains: "'method'"),
    PrecedenceCase(name: "params array", connected: true, message: #"{"jsonrpc":"2.0","id":3,"method":"ping","params":[]}"#,
                   code: -32602, id: 3, messageContains: "'params' must be an object"),
    PrecedenceCase(name: "params array before connect", connected: false,
                   message: #"{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}"#, code: 1000, id: 3),
    PrecedenceCase(name: "params array to an unknown method", connected: true,
                   message: #"{"jsonrpc":"2.0","id":3,"method":"nosuch","params":[]}"#, code: -32601, id: 3),
    PrecedenceCase(name: "params of another type", connected: true,
                   message: #"{"jsonrpc":"2.0","id":3,"method":"ping","params":5}"#, code: -32600, id: 3),
    PrecedenceCase(name: "not connected beats bad params", connected: false,
                   message: #"{"jsonrpc":"2.0","id":4,"method":"publish","params":{"stream":"bad name"}}"#,
                   code: 1000, id: 4, messageContains: "Call connect first"),
    PrecedenceCase(name: "not connected beats unknown method", connected: false,
                   message: #"{"jsonrpc":"2.0","id":5,"method":"nosuch"}"#, code: 1000, id: 5),
    PrecedenceCase(name: "unknown method", connected: true, message: #"{"jsonrpc":"2.0","id":6,"method":"nosuch"}"#,
                   code: -32601, id: 6, messageContains: "nosuch"),
    PrecedenceCase(name: "a handle of any form is unknown", connected: true,
                   message: #"{"jsonrpc":"2.0","id":7,"method":"stop","params":{"handle":5}}"#,
                   code: 1007, id: 7, messageContains: "Unknown handle"),
    PrecedenceCase(name: "params before application errors", connected: true,
                   message: #"{"jsonrpc":"2.0","id":7,"method":"mute","params":{"handle":{"a":1},"kind":"data"}}"#,
                   code: -32602, id: 7, messageContains: "'kind'"),
    PrecedenceCase(name: "missing handle", connected: true,
                   message: #"{"jsonrpc":"2.0","id":7,"method":"getStats","params":{}}"#,
                   code: -32602, id: 7, messageContains: "'handle' is required"),
    PrecedenceCase(name: "NUL is valid JSON; the name rules refuse it", connected: true,
                   message: #"{"jsonrpc":"2.0","id":7,"method":"play","params":{"stream":"abc\u0000","sdp":"v=0"}}"#,
                   code: -32602, id: 7, messageContains: "'stream'"),
    PrecedenceCase(name: "sdp type", connected: true,
                   message: #"{"jsonrpc":"2.0","id":8,"method":"publish","params":{"stream":"cam","sdp":5}}"#,
                   code: -32602, id: 8, messageContains: "Invalid params: 'sdp' must be a string"),
    PrecedenceCase(name: "missing appKey", connected: false,
                   message: #"{"jsonrpc":"2.0","id":9,"method":"connect","params":{}}"#,
                   code: -32602, id: 9, messageContains: "'appKey'"),
    PrecedenceCase(name: "stream with a space", connected: true,
                   message: #"{"jsonrpc":"2.0","id":10,"method":"publish","params":{"stream":"a b","sdp":"v=0"}}"#,
                   code: -32602, id: 10, messageContains: "'stream'"),
    PrecedenceCase(name: "empty stream", connected: true,
                   message: #"{"jsonrpc":"2.0","id":11,"method":"play","params":{"stream":"","sdp":"v=0"}}"#,
                   code: -32602, id: 11, messageContains: "'stream'"),
    PrecedenceCase(name: "stream of 129 characters", connected: true,
                   message: #"{"jsonrpc":"2.0","id":12,"method":"play","params":{"stream":""# + String(repeating: "a", count: 129) + #"","sdp":"v=0"}}"#,
                   code: -32602, id: 12, messageContains: "'stream'"),
    PrecedenceCase(name: "non-ASCII stream", connected: true,
                   message: #"{"jsonrpc":"2.0","id":13,"method":"play","params":{"stream":"café","sdp":"v=0"}}"#,
                   code: -32602, id: 13, messageContains: "'stream'"),
    PrecedenceCase(name: "bad kind", connected: true,
                   message: #"{"jsonrpc":"2.0","id":14,"method":"mute","params":{"handle":"h1","kind":"data"}}"#,
                   code: -32602, id: 14, messageContains: "'kind'"),
    PrecedenceCase(name: "unknown handle", connected: true,
                   message: #"{"jsonrpc":"2.0","id":"s-15","method":"stop","params":{"handle":"nope"}}"#,
                   code: 1007, id: "s-15", messageContains: "Unknown handle"),
    PrecedenceCase(name: "unknown handle on update", connected: true,
                   message: #"{"jsonrpc":"2.0","id":16,"method":"update","params":{"handle":"nope","constraints":{}}}"#,
                   code: 1007, id: 16),
    PrecedenceCase(name: "second connect", connected: true,
                   message: #"{"jsonrpc":"2.0","id":17,"method":"connect","params":{"appKey":"demo"}}"#,
                   code: -32600, id: 17, messageContains: "already connected"),
]
