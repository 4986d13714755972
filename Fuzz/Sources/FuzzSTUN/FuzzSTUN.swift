import SluiceTransport
import SluiceWire

/// Parses arbitrary bytes as STUN, walks every attribute and accessor, checks integrity and
/// fingerprint, and runs the ICE-lite server on it. When the server answers, the answer must
/// parse and verify with the server's own key. Nothing may trap.
let integrityKey = STUNIntegrityKey(password: "VOkJxbRl1RmTxUk/WvJxBt")
let server = ICELiteServer(localUfrag: "evtj", localPassword: "VOkJxbRl1RmTxUk/WvJxBt", remoteUfrag: nil, now: 0)
let source = SocketAddress(host: "127.0.0.1", port: 5000)!
let reply = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
var clock: UInt64 = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUN(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    _ = STUNMessage.isSTUN(raw)
    _ = ICELiteServer.localUfrag(inBindingRequest: raw)
    guard let message = try? STUNMessage(parsing: raw) else { return 0 }

    var total = 0
    for attribute in message.attributes { total &+= Int(attribute.type) &+ attribute.value.count }
    _ = message.username
    _ = message.usernameLocalFragment
    _ = message.usernameRemoteFragment
    _ = message.xorMappedAddress
    _ = message.errorCode
    _ = message.checkMessageIntegrity(key: integrityKey)
    _ = message.checkFingerprint()

    clock &+= 1_000
    let result = server.handleBindingRequest(message, from: source, now: clock, reply: reply)
    if case .respond(let length, _) = result {
        guard let answer = try? STUNMessage(parsing: UnsafeRawBufferPointer(rebasing: reply[0..<length])),
              answer.transactionID == message.transactionID,
              answer.checkMessageIntegrity(key: server.integrityKey),
              answer.checkFingerprint()
        else { fatalError("ICE-lite answer does not verify") }
    }
    return 0
}
