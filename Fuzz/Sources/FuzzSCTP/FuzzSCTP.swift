import SluiceDataChannel

/// What the server reads of a peer's SCTP before usrsctp does (SCTPPacketCheck: the common
/// header and the chunk walk) and the DCEP messages it parses itself. The first byte picks
/// which; an open that parses must write back to the same bytes it was read from (up to its
/// label and protocol). Nothing may trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSCTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let raw = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    if data[0] & 1 == 0 {
        if let check = try? SCTPPacketCheck(packet: raw, localPort: 5000, remotePort: 5000) {
            precondition(check.chunks >= 1 && check.initChunks <= check.chunks)
            precondition(check.initChunks == 0 || check.chunks == 1)
        }
    } else if let message = try? DCEPMessage(parsing: raw) {
        let written = message.bytes
        let again = written.withUnsafeBytes { try? DCEPMessage(parsing: $0) }
        precondition(again == message, "a DCEP message does not survive its own encoding")
    }
    return 0
}
