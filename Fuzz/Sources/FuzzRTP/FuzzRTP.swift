import SluiceRTP
import SluiceWire

/// Parses arbitrary bytes as an RTP packet and its payload as every codec descriptor, then
/// rewrites header fields, re-parses and checks that only those fields changed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
    defer { buffer.deallocate() }
    if size > 0 { buffer.baseAddress!.copyMemory(from: data, byteCount: size) }
    let original = Array(buffer)

    _ = RTPPacket.looksLikeRTP(UnsafeRawBufferPointer(buffer))
    _ = RTPPacket.looksLikeRTCP(UnsafeRawBufferPointer(buffer))
    guard let packet = RTPPacket(parsing: buffer) else { return 0 }
    precondition(packet.headerLength + packet.paddingLength + packet.payloadLength == size)
    precondition(packet.payloadLength >= 0)

    // Extensions: every element lies inside the block; rebuild them into a list and compare.
    var list = RTPHeaderExtensionList()
    var elements = packet.extensions
    var seen = 0
    while let element = elements.next() {
        let block = packet.extensionRange!
        precondition(element.range.lowerBound >= block.lowerBound && element.range.upperBound <= block.upperBound)
        precondition(packet.extensionValue(id: element.id) != nil)
        if list.append(id: element.id, value: element.value) { seen += 1 }
        _ = AbsSendTime.read(element.value)
        _ = TransportWideSequenceNumber.read(element.value)
        _ = AudioLevel(parsing: element.value)
        _ = RTPToken(element.value)
    }
    checkExtensionList(list, count: seen)

    let payload = UnsafeRawBufferPointer(packet.payload)
    let vp8 = VP8PayloadDescriptor(parsing: payload)
    if let vp8 {
        precondition(vp8.length <= payload.count)
        _ = vp8.isKeyFrame
        if let size = vp8.keyFrameSize(in: payload) { precondition(size.width < 0x4000 && size.height < 0x4000) }
        // A key frame either has its start code (and a size) or is taken for encrypted.
        if vp8.lacksStartCode(in: payload) { precondition(vp8.isKeyFrame && vp8.keyFrameSize(in: payload) == nil) }
    }
    if let h264 = H264Payload(parsing: payload) {
        _ = h264.isKeyFrame
        var units = h264.aggregatedNALUnits
        while let unit = units.next() { precondition(unit.count > 0) }
        if let sps = h264.sequenceParameterSet, let parsed = H264SequenceParameterSet(parsing: sps) {
            precondition(parsed.width > 0 && parsed.height > 0)
        }
        _ = H264SequenceParameterSet(parsing: payload)
    }
    if let vp9 = VP9PayloadDescriptor(parsing: payload) {
        precondition(vp9.length <= payload.count)
        _ = vp9.isKeyFrame
        // VP9 SVC without the dependency descriptor: the structure it makes holds its frames.
        let sizes = VP9PayloadDescriptor.layerSizes(in: payload)
        precondition(sizes.isEmpty || sizes.count == vp9.spatialLayerCount)
        var layers = VP9Dependency()
        var table = DependencyTemplateTable()
        if let frame = layers.frame(vp9, payload: payload, timestamp: packet.timestamp, table: &table) {
            precondition(table.isLoaded && frame.generation == table.generation)
            precondition(Int(frame.spatialID) <= table.maxSpatialID && Int(frame.temporalID) <= table.maxTemporalID)
            precondition(table.decodeTargetCount <= DependencyStructure.maxDecodeTargets)
        }
    }
    if let av1 = AV1Payload(parsing: payload) {
        checkAV1(av1, payload: payload)
    }
    _ = AV1SequenceHeader(parsing: payload)
    _ = OpusPayload(parsing: payload)?.isDTX
    // RED (RFC 2198): every block inside the payload, the primary last and running to its end.
    if let red = REDPayload(parsing: payload, redPayloadType: packet.payloadType &+ 1) {
        precondition(red.count >= 1 && red.count <= REDPayload.maxBlocks)
        precondition(red.primary.range.upperBound == payload.count && red.primary.range.lowerBound <= payload.count)
        var end = red.primary.range.lowerBound
        for i in stride(from: red.count - 2, through: 0, by: -1) {
            let block = red.block(i, in: payload)!
            precondition(block.range.upperBound == end && block.range.lowerBound >= 0)
            end = block.range.lowerBound
        }
        precondition(red.block(red.count - 1, in: payload) == nil)
    }

    // The Dependency Descriptor, the payload's bytes taken as its value: read alone (a
    // structure it carries) and against a known structure; what reads writes back the same.
    checkDependencyDescriptor(payload, latest: nil)
    checkDependencyDescriptor(payload, latest: fuzzStructure)
    checkDependencyFrame(payload)

    // Rewrite the header in place and re-parse.
    let header = RTPHeader(packet)
    let rewritten = RTPHeader(marker: !header.marker, payloadType: header.payloadType ^ 0x15,
                              sequenceNumber: header.sequenceNumber &+ 1000, timestamp: header.timestamp &+ 90_000,
                              ssrc: ~header.ssrc)
    packet.marker = rewritten.marker
    packet.payloadType = rewritten.payloadType
    packet.sequenceNumber = rewritten.sequenceNumber
    packet.timestamp = rewritten.timestamp
    packet.ssrc = rewritten.ssrc
    if let vp8 {
        let pictureID = vp8.pictureID.map { $0 &+ 1 } ?? 0
        let wrote = vp8.write(pictureID: pictureID, into: packet.payload)
        precondition(wrote == (vp8.pictureID != nil))
        vp8.write(tl0PicIdx: (vp8.tl0PicIdx ?? 0) &+ 1, into: packet.payload)
        let again = VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(packet.payload))!
        precondition(again.length == vp8.length && again.hasLongPictureID == vp8.hasLongPictureID)
        if let id = vp8.pictureID {
            precondition(again.pictureID == (id &+ 1) & (vp8.hasLongPictureID ? 0x7fff : 0x7f))
        }
        if let tl0 = vp8.tl0PicIdx { precondition(again.tl0PicIdx == tl0 &+ 1) }
    }
    guard let reparsed = RTPPacket(parsing: buffer) else { preconditionFailure("rewritten packet rejected") }
    precondition(RTPHeader(reparsed) == rewritten)
    precondition(reparsed.headerLength == packet.headerLength && reparsed.paddingLength == packet.paddingLength)
    // Bytes past the fixed header are unchanged, except the VP8 fields rewritten above.
    if vp8 == nil {
        for index in 12..<size { precondition(buffer[index] == original[index]) }
    }

    // Write a fresh header copying the extension block, then the payload; the result parses back.
    let out = UnsafeMutableRawBufferPointer.allocate(byteCount: size + 16, alignment: 8)
    defer { out.deallocate() }
    var writer = ByteWriter(out)
    guard let offset = rewritten.write(into: &writer, copyingExtensionsOf: reparsed) else {
        preconditionFailure("header did not fit")
    }
    writer.write(bytes: UnsafeRawBufferPointer(reparsed.payload))
    precondition(!writer.overflowed)
    guard let copy = RTPPacket(parsing: UnsafeMutableRawBufferPointer(rebasing: out[0..<writer.offset])) else {
        preconditionFailure("copied packet rejected")
    }
    precondition(copy.payloadOffset == offset && RTPHeader(copy) == rewritten)
    precondition(copy.payloadLength == reparsed.payloadLength && copy.csrcCount == 0)
    return 0
}

/// OBU elements and OBU payloads lie inside the packet payload; a sequence header found in it
/// has a size that the 16-bit fields can hold.
func checkAV1(_ av1: AV1Payload, payload: UnsafeRawBufferPointer) {
    _ = av1.aggregationHeader.isKeyFrame
    let start = payload.baseAddress! + AV1AggregationHeader.length
    let end = payload.baseAddress! + payload.count
    var elements = av1.obuElements
    var previousEnd = start
    while let element = elements.next() {
        precondition(element.count > 0 && element.baseAddress! >= previousEnd && element.baseAddress! + element.count <= end)
        previousEnd = element.baseAddress! + element.count
        if let header = AV1OBUHeader(parsing: element) {
            precondition(header.length >= 1 && header.length <= element.count)
            let body = header.payload(in: element)
            precondition(body.count == 0 || body.baseAddress! == element.baseAddress! + header.length)
            precondition(body.count <= element.count - header.length && body.count <= header.payloadSize ?? .max)
        }
    }
    if let obu = av1.sequenceHeader {
        precondition(obu.count == 0 || (obu.baseAddress! >= start && obu.baseAddress! + obu.count <= end))
        if let header = AV1SequenceHeader(parsing: obu) {
            precondition((1...65536).contains(header.maxFrameWidth) && (1...65536).contains(header.maxFrameHeight))
            precondition(header.profile <= 2 && (1...32).contains(header.operatingPointCount))
            precondition(header.isStillPicture || !header.hasReducedStillPictureHeader)
        }
    }
}

/// Serializes a list, iterates it back and compares with the list's own view.
func checkExtensionList(_ list: RTPHeaderExtensionList, count: Int) {
    precondition(list.count == count)
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: list.serializedSize, alignment: 8)
    defer { storage.deallocate() }
    var writer = ByteWriter(storage)
    list.write(into: &writer)
    precondition(!writer.overflowed && writer.offset == list.serializedSize && writer.offset % 4 == 0)
    guard !list.isEmpty else { return }
    let bytes = UnsafeRawBufferPointer(storage)
    let profile = bytes.loadBigEndianUInt16(at: 0)
    var parsed = RTPHeaderExtensionIterator(profile: profile, elements: UnsafeRawBufferPointer(rebasing: bytes[4...]))
    var matched = 0
    list.forEach { id, value in
        guard let element = parsed.next() else { preconditionFailure("element lost") }
        precondition(element.id == id && element.value.elementsEqual(value))
        matched += 1
    }
    precondition(parsed.next() == nil && matched == count)
}

/// L1T3 with one chain: what a descriptor without a structure of its own is read against.
let fuzzStructure = DependencyStructure(
    templateIDOffset: 3, decodeTargetCount: 3,
    templates: [
        FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: [.switchPoint, .switchPoint, .switchPoint], chainDiffs: [0]),
        FrameDependencyTemplate(spatialID: 0, temporalID: 1, dtis: [.notPresent, .discardable, .switchPoint],
                                frameDiffs: [2], chainDiffs: [2]),
        FrameDependencyTemplate(spatialID: 0, temporalID: 2, dtis: [.notPresent, .notPresent, .discardable],
                                frameDiffs: [1], chainDiffs: [1]),
    ],
    chainCount: 1, decodeTargetProtectedBy: [0, 0, 0])

func checkDependencyDescriptor(_ bytes: UnsafeRawBufferPointer, latest: DependencyStructure?) {
    guard let descriptor = try? DependencyDescriptor(parsing: bytes, latest: latest) else { return }
    let known = descriptor.structure ?? latest!
    precondition(known.templates.count <= DependencyStructure.maxTemplates)
    precondition((1...DependencyStructure.maxDecodeTargets).contains(known.decodeTargetCount))
    precondition(descriptor.dtis.count == known.decodeTargetCount && descriptor.frameDiffs.count <= DependencyStructure.maxFrameDiffs)
    precondition(known.template(id: descriptor.templateID) != nil)
    // A structure read is one the writer can say again, and says the same.
    guard descriptor.structure?.isWritable ?? true else { return }
    let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
    defer { out.deallocate() }
    guard let length = descriptor.write(into: out, latest: latest) else {
        preconditionFailure("a descriptor that was read cannot be written")
    }
    let again = try? DependencyDescriptor(parsing: UnsafeRawBufferPointer(rebasing: out[..<length]), latest: latest)
    precondition(again == descriptor, "a descriptor changed through its own bytes")
}

/// The packet path's reader (`DependencyFrame.read` against a `DependencyTemplateTable`) says
/// what the full parse says of the same bytes, for a table empty and for one that holds the
/// fuzz structure, and reads a second time the same (a repeated structure is not parsed again).
let fuzzTable: DependencyTemplateTable = {
    var table = DependencyTemplateTable()
    precondition(table.load(fuzzStructure, tail: UnsafeRawBufferPointer(start: nil, count: 0)))
    return table
}()

func checkDependencyFrame(_ bytes: UnsafeRawBufferPointer) {
    for start in [DependencyTemplateTable(), fuzzTable] {
        var table = start
        let latest: DependencyStructure? = start.isLoaded ? fuzzStructure : nil
        let frame = DependencyFrame.read(bytes, offset: 12, table: &table)
        let full = try? DependencyDescriptor(parsing: bytes, latest: latest)
        guard let frame else { continue }
        // The fast reader may read what the full parse refuses only past the fields it reads
        // (the frame differences and chains it skips); what both read must agree.
        if let full {
            precondition(Int(frame.spatialID) == full.spatialID && Int(frame.temporalID) == full.temporalID)
            precondition(frame.startOfFrame == full.startOfFrame && frame.endOfFrame == full.endOfFrame)
            precondition(frame.frameNumber == full.frameNumber && frame.attachesStructure == (full.structure != nil))
            for (target, dti) in full.dtis.enumerated() { precondition(frame.indication(target: target) == dti) }
        }
        precondition(frame.length == bytes.count && frame.offset == 12 && table.isLoaded)
        precondition(Int(frame.spatialID) <= table.maxSpatialID && Int(frame.temporalID) <= table.maxTemporalID)
        // The same again; only the structure's generation may move (a structure whose bytes
        // cannot be kept to compare, or that carries the frame's own indications, loads anew).
        guard var again = DependencyFrame.read(bytes, offset: 12, table: &table) else {
            preconditionFailure("a second read of the same bytes failed")
        }
        precondition(again.generation >= frame.generation)
        again.generation = frame.generation
        precondition(again == frame, "a second read of the same bytes differs")
        checkActiveTargets(bytes, frame: frame, table: table, full: full, latest: latest)
    }
}

/// The active decode targets rewrite of what the packet path read: it fits the sender's
/// scratch, and where the full parse took the source, it takes the rewrite, with the bitmask
/// set and the rest unchanged.
func checkActiveTargets(_ bytes: UnsafeRawBufferPointer, frame: DependencyFrame, table: DependencyTemplateTable,
                        full: DependencyDescriptor?, latest: DependencyStructure?) {
    let targets = max(1, table.decodeTargetCount)
    let mask = UInt32(truncatingIfNeeded: bytes.count &* 2_654_435_761) & (targets == 32 ? .max : (1 << UInt32(targets)) - 1)
    withUnsafeTemporaryAllocation(byteCount: 264, alignment: 8) { out in
        guard let length = DependencyActiveTargets.write(bytes, attachesStructure: frame.attachesStructure,
                                                         structureEndBit: table.structureEndBit, targets: targets,
                                                         mask: mask, into: out) else { return }
        precondition(length <= 264 && length >= 4)
        guard var source = full, let rewritten = try? DependencyDescriptor(parsing: UnsafeRawBufferPointer(rebasing: out[..<length]),
                                                                           latest: latest) else { return }
        precondition(rewritten.activeDecodeTargets == mask, "the rewrite's bitmask reads back otherwise")
        source.activeDecodeTargets = mask
        precondition(rewritten == source, "the rewrite changed more than the bitmask")
    }
}
