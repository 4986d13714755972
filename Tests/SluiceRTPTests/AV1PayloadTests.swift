import SluiceWire
import Testing
@testable import SluiceRTP

/// The 1280x720 sequence header from aomenc (AV1SequenceHeaderTests) and the first bytes of
/// the key frame OBU that followed it, as an RTP sender passes them: without obu_size.
private let sequenceHeaderOBU: [UInt8] = [0x08] + AomencSequenceHeaders.rt1280x720
private let frameOBU: [UInt8] = [0x30, 0x10, 0x00, 0x8c, 0x60, 0x0c, 0x30, 0xc3, 0x09, 0x44, 0x10]

private func leb128(_ value: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var rest = value
    repeat {
        bytes.append(UInt8(rest & 0x7f) | (rest > 0x7f ? 0x80 : 0))
        rest >>= 7
    } while rest > 0
    return bytes
}

struct AV1PayloadCase: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var elementCount: Int
    var isMalformed = false
    /// The sequence header's size, nil when the packet has none that can be read.
    var size: (width: Int, height: Int)?
    var testDescription: String { name }
}

@Test(arguments: [
    // How libwebrtc sends a key frame's first packet: N=1, W=2, the last element without length.
    AV1PayloadCase(name: "W=2, sequence header then frame",
                   bytes: [0x28] + leb128(sequenceHeaderOBU.count) + sequenceHeaderOBU + frameOBU,
                   elementCount: 2, size: (1280, 720)),
    AV1PayloadCase(name: "W=0, every element with its length",
                   bytes: [0x08] + leb128(sequenceHeaderOBU.count) + sequenceHeaderOBU
                       + leb128(frameOBU.count) + frameOBU,
                   elementCount: 2, size: (1280, 720)),
    AV1PayloadCase(name: "W=1, the sequence header alone", bytes: [0x18] + sequenceHeaderOBU,
                   elementCount: 1, size: (1280, 720)),
    AV1PayloadCase(name: "obu_size kept, as in a low-overhead bitstream file",
                   bytes: [0x18, 0x0a, 0x0b] + AomencSequenceHeaders.rt1280x720, elementCount: 1, size: (1280, 720)),
    AV1PayloadCase(name: "OBU extension: temporal 0, spatial 2",
                   bytes: [0x18, 0x0c, 0x10] + AomencSequenceHeaders.rt1280x720, elementCount: 1, size: (1280, 720)),
    AV1PayloadCase(name: "a temporal delimiter first",
                   bytes: [0x28, 0x01, 0x10] + sequenceHeaderOBU, elementCount: 2, size: (1280, 720)),
    AV1PayloadCase(name: "W=3, the sequence header last",
                   bytes: [0x38, 0x01, 0x10] + leb128(frameOBU.count) + frameOBU + sequenceHeaderOBU,
                   elementCount: 3, size: (1280, 720)),
    // Y=1: the sequence header continues in the next packet, but its first bytes hold the size.
    AV1PayloadCase(name: "sequence header fragment with the size",
                   bytes: [0x58] + sequenceHeaderOBU.prefix(9), elementCount: 1, size: (1280, 720)),
    AV1PayloadCase(name: "sequence header fragment cut before the size",
                   bytes: [0x58] + sequenceHeaderOBU.prefix(8), elementCount: 1),
    // Z=1: the first element's first byte is not an OBU header, whatever it looks like.
    AV1PayloadCase(name: "continuation that looks like a sequence header",
                   bytes: [0x98] + sequenceHeaderOBU, elementCount: 1),
    AV1PayloadCase(name: "continuation, then a sequence header",
                   bytes: [0xa8, 0x03, 0x08, 0x00, 0x00] + sequenceHeaderOBU, elementCount: 2, size: (1280, 720)),
    AV1PayloadCase(name: "no sequence header", bytes: [0x10] + frameOBU, elementCount: 1),
    AV1PayloadCase(name: "aggregation header only", bytes: [0x08], elementCount: 0),
    AV1PayloadCase(name: "forbidden bit set", bytes: [0x18, 0x88] + AomencSequenceHeaders.rt1280x720,
                   elementCount: 1),
    AV1PayloadCase(name: "obu_size past the element", bytes: [0x18, 0x0a, 0x0c] + AomencSequenceHeaders.rt1280x720,
                   elementCount: 1, size: (1280, 720)),
    AV1PayloadCase(name: "obu_size that hides the size", bytes: [0x18, 0x0a, 0x07] + AomencSequenceHeaders.rt1280x720,
                   elementCount: 1),
    AV1PayloadCase(name: "length past the payload", bytes: [0x08, 0x0d] + sequenceHeaderOBU,
                   elementCount: 0, isMalformed: true),
    AV1PayloadCase(name: "zero length", bytes: [0x08, 0x00, 0x08], elementCount: 0, isMalformed: true),
    AV1PayloadCase(name: "length that never ends", bytes: [0x08] + [UInt8](repeating: 0xff, count: 12),
                   elementCount: 0, isMalformed: true),
    AV1PayloadCase(name: "good element, then a cut length",
                   bytes: [0x08] + leb128(sequenceHeaderOBU.count) + sequenceHeaderOBU + [0x80],
                   elementCount: 1, isMalformed: true, size: (1280, 720)),
])
func walksAV1Payload(_ packet: AV1PayloadCase) throws {
    try packet.bytes.withUnsafeBytes { raw in
        let payload = try #require(AV1Payload(parsing: raw))
        var elements = payload.obuElements
        var count = 0
        while let element = elements.next() {
            #expect(element.count > 0)
            count += 1
        }
        #expect(count == packet.elementCount)
        #expect(elements.isMalformed == packet.isMalformed)
        let header = payload.sequenceHeader.flatMap { AV1SequenceHeader(parsing: $0) }
        #expect(header?.maxFrameWidth == packet.size?.width && header?.maxFrameHeight == packet.size?.height)
    }
}

@Test func emptyPayloadIsNotAV1() {
    #expect([UInt8]().withUnsafeBytes { AV1Payload(parsing: $0) } == nil)
}

@Test(arguments: [
    ([0x08], 1, nil, nil, nil, 1),                         // sequence header
    ([0x0a, 0x0b], 1, nil, nil, 11, 2),                    // with obu_size 11
    ([0x32, 0x80, 0x01], 6, nil, nil, 128, 3),             // frame, obu_size 128 in two bytes
    ([0x36, 0xe8, 0x05], 6, 7, 1, 5, 3),                   // frame, extension (T 7, S 1), obu_size 5
    ([0x14, 0x20], 2, 1, 0, nil, 2),                       // temporal delimiter with extension
] as [([UInt8], UInt8, UInt8?, UInt8?, Int?, Int)])
func parsesOBUHeader(_ bytes: [UInt8], type: UInt8, temporal: UInt8?, spatial: UInt8?, size: Int?, length: Int) throws {
    let header = try #require(bytes.withUnsafeBytes { AV1OBUHeader(parsing: $0) })
    #expect(header.type == type)
    #expect(header.temporalID == temporal && header.spatialID == spatial)
    #expect(header.payloadSize == size)
    #expect(header.length == length)
}

@Test(arguments: [
    [],
    [0x88],              // forbidden bit
    [0x0c],              // extension flag without the extension byte
    [0x0a],              // obu_size flag without obu_size
    [0x0a, 0x80],        // obu_size cut short
] as [[UInt8]])
func rejectsOBUHeader(_ bytes: [UInt8]) {
    #expect(bytes.withUnsafeBytes { AV1OBUHeader(parsing: $0) } == nil)
}

@Test(arguments: [
    ([0x00], 0, 1),
    ([0x7f], 127, 1),
    ([0x80, 0x01], 128, 2),
    ([0xe5, 0x8e, 0x26, 0x55], 624_485, 3),                          // stops at the first byte without 0x80
    ([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0, 8),        // padded to the 8-byte limit
    ([0xff, 0xff, 0xff, 0xff, 0x0f], 0xffff_ffff, 5),                // the largest value allowed
    ([0x80, 0x80, 0x80, 0x80, 0x10], nil, nil),                      // 2^32
    ([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], nil, nil),  // 9 bytes
    ([0x80], nil, nil),                                              // cut short
    ([], nil, nil),
] as [([UInt8], Int?, Int?)])
func readsLEB128(_ bytes: [UInt8], value: Int?, length: Int?) {
    bytes.withUnsafeBytes { raw in
        var reader = ByteReader(raw)
        #expect(reader.readLEB128() == value)
        if let length { #expect(reader.offset == length) }
    }
}
