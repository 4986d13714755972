import SluiceClient

/// The Swift SDK's WebSocket frame parser reads what a server sends: parse a stream of frames,
/// re-serialize each (masked, as a client sends) and parse it back to the same frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var rest = bytes[...]
    while true {
        let parsed: (frame: WebSocketFrame, consumed: Int)?
        do {
            parsed = try WebSocketFrame.parse(rest, maxPayload: 1 << 16)
        } catch {
            break
        }
        guard let (frame, consumed) = parsed, consumed > 0 else { break }
        let again = frame.serialized(mask: (1, 2, 3, 4))
        guard let round = try? WebSocketFrame.parse(again[...], maxPayload: 1 << 16), round.frame == frame,
              round.consumed == again.count else {
            fatalError("frame did not survive a round trip: \(frame)")
        }
        if frame.opcode == .close { _ = WebSocketFrame.parseClose(frame.payload) }
        rest = rest.dropFirst(consumed)
    }
    return 0
}
