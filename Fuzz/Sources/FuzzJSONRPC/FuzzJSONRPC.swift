import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceLog
import SluiceMedia
import SluiceSignaling
import SluiceVocabulary

/// A media engine that accepts everything and queues a status, so the event path runs too.
final class FuzzMedia: MediaControl {
    var wakeup: @Sendable () -> Void = {}
    private var events: [MediaEvent] = []
    private var next = 0

    func publish(_ request: PublishRequest) throws(MediaError) -> MediaAnswer {
        if request.offer.hasPrefix("bad") { throw .badSDP(request.offer) }
        return answer(request.session, request.stream, .publish)
    }

    func play(_ request: PlayRequest) throws(MediaError) -> MediaAnswer {
        if request.stream.hasPrefix("missing") { throw .streamNotFound }
        return answer(request.session, request.stream, .play)
    }

    private func answer(_ session: SessionID, _ stream: String, _ role: StreamRole) -> MediaAnswer {
        next += 1
        events.append(.streamStatus(session: session, handle: "h\(next)", stream: stream, role: role,
                                    status: .pending, info: nil, ends: false))
        return MediaAnswer(handle: "h\(next)", sdp: "v=0")
    }

    func precall(_ request: PrecallRequest) throws(MediaError) -> MediaAnswer {
        if request.offer.hasPrefix("bad") { throw .badSDP(request.offer) }
        return answer(request.session, "", .publish)
    }
    func stop(handle: StreamHandle) throws(MediaError) {}
    func stats(handle: StreamHandle) throws(MediaError) -> HandleStats {
        HandleStats(handle: handle, stream: "s", role: .play, audio: KindStats(), video: KindStats())
    }
    func requestKeyFrame(handle: StreamHandle) throws(MediaError) {}
    func update(handle: StreamHandle, constraints: StreamConstraints) throws(MediaError) {}
    func setMuted(handle: StreamHandle, kind: MediaKind, muted: Bool) throws(MediaError) {}
    func setServerMuted(stream: String, kind: MediaKind, muted: Bool) throws(MediaError) {}
    func endSession(_ session: SessionID) {}
    func drainEvents(_ body: (MediaEvent) -> Void) {
        let queued = events
        events = []
        queued.forEach(body)
    }
    func shutdown() {}
    var recordingEnabled: Bool { true }
}

final class NullOutput: SessionOutput {
    /// The last `callId` the server named (a `call`'s result, an `incomingCall`), for "$CALL".
    var lastCallID: String?

    func send(text: String) {
        // Everything the server sends must itself be valid JSON.
        guard let value = try? JSONValue.parse(text) else { fatalError("server sent invalid JSON: \(text)") }
        if let id = value["result"]?["callId"]?.stringValue ?? value["params"]?["callId"]?.stringValue { lastCallID = id }
    }
    func close(code: UInt16, reason: String) {}
}

let media = FuzzMedia()
var config: SignalingConfig = {
    var app = SignalingConfig.App(key: "demo")
    // Sessions name their users, so the call methods get past the identity check.
    app.trustClientUser = true
    var config = SignalingConfig(apps: [app])
    // A closed caller's calls end at once, not after a reconnect wait no tick would end.
    config.calls = CallSettings(ringTimeoutSeconds: 60, reconnectSeconds: 0, perMinute: 100_000)
    // Ended calls are forgotten at the run's tick, so every run frees what it made: a run that
    // keeps memory makes libFuzzer scan for leaks after it, a hundred times slower.
    config.calls.endedCallMemorySeconds = 0
    return config
}()
let manager: SessionManager = {
    config.maxMessageBytes = 65_536
    config.requestsPerSecond = 0
    return SessionManager(config: config, media: media, log: Log(level: .error))
}()
let output = NullOutput()
/// Bob stays online for every input, so a call rings and the input's call methods meet a
/// live call: the input's "$CALL" is replaced by the id of the call alice just made to him.
let bobOutput = NullOutput()
let bob: RPCSession = {
    let session = manager.open(output: bobOutput)
    manager.receive(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"demo","user":"bob"}}"#, from: session)
    return session
}()

/// One message to a fresh session and one to a connected session; then, when the input is
/// JSON, parse -> serialize -> parse must give the same value. Last, the input's bytes as a
/// client string in a JSON log line (`log.format: "json"`) must leave one line that jansson
/// parses back to the same string.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONRPC(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)

    let fresh = manager.open(output: output)
    manager.receive(bytes, from: fresh)
    manager.closed(fresh)

    let connected = manager.open(output: output)
    manager.receive(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"demo","user":"alice"}}"#, from: connected)
    manager.receive(#"{"jsonrpc":"2.0","id":2,"method":"call","params":{"to":"bob"}}"#, from: connected)
    withCallID(bytes, output.lastCallID).withUnsafeBytes { manager.receive($0, from: connected) }
    // Bob answers too, in the input's words, so callee-only methods run with a live call.
    withCallID(bytes, output.lastCallID).withUnsafeBytes { manager.receive($0, from: bob) }
    manager.closed(connected)
    manager.callTick()

    if let value = try? JSONValue.parse(bytes) {
        let text = value.serialized()
        guard let again = try? JSONValue.parse(text) else { fatalError("re-parse failed: \(text)") }
        guard again == value else { fatalError("round trip changed the value: \(text)") }
        guard again.serialized() == text else { fatalError("serialization is not stable: \(text)") }
    }
    let client = String(decoding: bytes, as: UTF8.self)
    let line = LogLine(time: "t", level: .info, component: "fuzz", message: client, fields: [.stream(client)]).json
    guard !line.contains("\n"), let logged = try? JSONValue.parse(line),
          logged["message"]?.stringValue == client, logged["stream"]?.stringValue == client else {
        fatalError("a JSON log line of the input is not one line of valid JSON: \(line)")
    }
    return 0
}

/// The input with every "$CALL" replaced by `callID` (unchanged without one, or without a call).
func withCallID(_ bytes: UnsafeRawBufferPointer, _ callID: String?) -> [UInt8] {
    let input = Array(bytes)
    guard let callID, input.count >= 5 else { return input }
    let marker = Array("$CALL".utf8), id = Array(callID.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(input.count)
    var i = 0
    while i < input.count {
        if i + marker.count <= input.count && input[i..<(i + marker.count)].elementsEqual(marker) {
            out += id
            i += marker.count
        } else {
            out.append(input[i])
            i += 1
        }
    }
    return out
}
