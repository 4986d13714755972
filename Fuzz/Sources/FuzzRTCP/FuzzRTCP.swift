import SluiceRTP
import SluiceWire

/// Walks arbitrary bytes as a compound RTCP packet, parses every packet as each type,
/// serializes what parses, and checks the re-parsed value equals the first.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var iterator = RTCPCompoundIterator(input)
    var end = 0
    while let (packet, range) = iterator.next() {
        precondition(range.lowerBound == end && range.upperBound <= size && range.count % 4 == 0)
        precondition(packet.body.count + 4 <= packet.bytes.count)
        end = range.upperBound
        parseAll(packet.bytes)
    }
    precondition(iterator.isMalformed || end == size)
    // Also hit each parser with the raw input, whatever its header says.
    parseAll(input)
    return 0
}

func parseAll(_ bytes: UnsafeRawBufferPointer) {
    roundTrip(RTCPSenderReport(parsing: bytes), RTCPSenderReport.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPReceiverReport(parsing: bytes), RTCPReceiverReport.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPSourceDescription(parsing: bytes), RTCPSourceDescription.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPBye(parsing: bytes), RTCPBye.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPGenericNACK(parsing: bytes), RTCPGenericNACK.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPPictureLossIndication(parsing: bytes), RTCPPictureLossIndication.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPFullIntraRequest(parsing: bytes), RTCPFullIntraRequest.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPREMB(parsing: bytes), RTCPREMB.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPTransportWideCC(parsing: bytes), RTCPTransportWideCC.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPLinkState(parsing: bytes), RTCPLinkState.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
    roundTrip(RTCPLinkLayers(parsing: bytes), RTCPLinkLayers.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }

    if let nack = RTCPGenericNACK(parsing: bytes) {
        let lost = nack.lostSequenceNumbers
        precondition(lost.count >= nack.pairs.count)
        // Rebuilt pairs report the same losses, modulo duplicates from overlapping pairs.
        let rebuilt = RTCPGenericNACK(senderSSRC: 0, mediaSSRC: 0, lostSequenceNumbers: lost)
        precondition(rebuilt.lostSequenceNumbers.count <= lost.count)
    }
    if let feedback = RTCPTransportWideCC(parsing: bytes) {
        var count = 0
        feedback.forEachPacket { _ in count += 1 }
        precondition(count == Int(feedback.packetStatusCount))
        let arrivals = feedback.packets.map { $0.status == .notReceived ? nil : Optional($0.delta) }
        let rebuilt = RTCPTransportWideCC(senderSSRC: 0, mediaSSRC: 0, baseSequenceNumber: feedback.baseSequenceNumber,
                                          referenceTime: feedback.referenceTime, feedbackPacketCount: 0,
                                          arrivals: arrivals)
        roundTrip(rebuilt, RTCPTransportWideCC.init(parsing:)) { $0.serializedSize } write: { $0.write(into: &$1) }
        // A sender may use the two-byte form for a delta that fits one byte: compare arrivals only.
        precondition(rebuilt.packets.map { $0.status == .notReceived ? nil : Optional($0.delta) } == arrivals)
    }
}

func roundTrip<T: Equatable>(_ value: T?, _ parse: (UnsafeRawBufferPointer) -> T?, size: (T) -> Int,
                             write: (T, inout ByteWriter) -> Void) {
    guard let value else { return }
    let count = size(value)
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
    defer { storage.deallocate() }
    var writer = ByteWriter(storage)
    write(value, &writer)
    precondition(!writer.overflowed && writer.offset == count && count % 4 == 0, "size mismatch for \(T.self)")
    guard let again = parse(UnsafeRawBufferPointer(storage)) else { preconditionFailure("\(T.self) did not re-parse") }
    precondition(again == value, "\(T.self) changed in round trip")
}
