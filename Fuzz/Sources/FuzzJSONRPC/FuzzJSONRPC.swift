import SluiceControl
import SluiceJSON
import SluiceJSONParser
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
    func send(text: String) {
        // Everything the server sends must itself be valid JSON.
        if (try? JSONValue.parse(text)) == nil { fatalError("server sent invalid JSON: \(text)") }
    }
    func close(code: UInt16, reason: String) {}
}

let media = FuzzMedia()
var config = SignalingConfig(apps: [.init(key: "demo")])
let manager: SessionManager = {
    config.maxMessageBytes = 65_536
    config.requestsPerSecond = 0
    return SessionManager(config: config, media: media, log: Log(level: .error))
}()
let output = NullOutput()

/// One message to a fresh session and one to a connected session; then, when the input is
/// JSON, parse -> serialize -> parse must give the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONRPC(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)

    let fresh = manager.open(output: output)
    manager.receive(bytes, from: fresh)
    manager.closed(fresh)

    let connected = manager.open(output: output)
    manager.receive(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"demo"}}"#, from: connected)
    manager.receive(bytes, from: connected)
    manager.closed(connected)

    if let value = try? JSONValue.parse(bytes) {
        let text = value.serialized()
        guard let again = try? JSONValue.parse(text) else { fatalError("re-parse failed: \(text)") }
        guard again == value else { fatalError("round trip changed the value: \(text)") }
        guard again.serialized() == text else { fatalError("serialization is not stable: \(text)") }
    }
    return 0
}
