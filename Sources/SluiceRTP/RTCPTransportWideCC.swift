import SluiceWire

/// Transport-wide congestion control feedback, RTPFB fmt 15
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
///
/// Chunks are kept as sent, so a parsed packet serializes to the same bytes; `forEachPacket`
/// expands them into one result per sequence number without allocating.
public struct RTCPTransportWideCC: Equatable, Sendable {
    public static let format: UInt8 = 15
    /// One delta tick, in microseconds.
    public static let deltaTickMicros: Int64 = 250
    /// One reference-time unit, in microseconds.
    public static let referenceTimeUnitMicros: Int64 = 64_000

    public enum Status: UInt8, Sendable {
        case notReceived = 0
        /// Delta in 0...255 ticks, one byte.
        case receivedSmallDelta = 1
        /// Delta outside 0...255 ticks, two signed bytes.
        case receivedLargeDelta = 2
    }

    public struct PacketResult: Equatable, Sendable {
        public var sequenceNumber: UInt16
        public var status: Status
        /// Arrival time minus the previous received packet's (or the reference time), in 250 µs ticks.
        public var delta: Int16

        public init(sequenceNumber: UInt16, status: Status, delta: Int16) {
            self.sequenceNumber = sequenceNumber
            self.status = status
            self.delta = delta
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var baseSequenceNumber: UInt16
    public var packetStatusCount: UInt16
    /// 24-bit signed, in units of 64 ms.
    public var referenceTime: Int32
    public var feedbackPacketCount: UInt8
    /// Packet status chunks, raw: run-length (top bit 0) or status vector (top bit 1).
    public var chunks: [UInt16]
    /// One receive delta per received packet, in 250 µs ticks.
    public var deltas: [Int16]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, packetStatusCount: UInt16,
                referenceTime: Int32, feedbackPacketCount: UInt8, chunks: [UInt16], deltas: [Int16]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.packetStatusCount = packetStatusCount
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.chunks = chunks
        self.deltas = deltas
    }

    /// Parses the first packet of `buffer`. Rejects reserved symbols, missing chunks and missing deltas.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.transportFeedback, count: Self.format)
        else { return nil }
        var reader = ByteReader(packet.body)
        guard let sender = reader.readUInt32(), let media = reader.readUInt32(),
              let base = reader.readUInt16(), let statusCount = reader.readUInt16(),
              let reference = reader.readUInt24(), let feedbackCount = reader.readUInt8() else { return nil }
        var chunks: [UInt16] = []
        var statuses = 0
        var smallDeltas = 0
        var largeDeltas = 0
        while statuses < Int(statusCount) {
            guard let chunk = reader.readUInt16() else { return nil }
            var valid = true
            Self.forEachSymbol(in: chunk, limit: Int(statusCount) - statuses) { symbol in
                switch symbol {
                case 0: break
                case 1: smallDeltas += 1
                case 2: largeDeltas += 1
                default: valid = false
                }
                statuses += 1
            }
            // A run of length zero would never end the loop on its own.
            guard valid, chunk & 0x8000 != 0 || chunk & 0x1fff != 0 else { return nil }
            chunks.append(chunk)
        }
        guard reader.remaining >= smallDeltas + 2 * largeDeltas else { return nil }
        var deltas: [Int16] = []
        deltas.reserveCapacity(smallDeltas + largeDeltas)
        var parsed = true
        Self.forEachSymbol(in: chunks, count: Int(statusCount)) { symbol in
            if symbol == 1, let delta = reader.readUInt8() {
                deltas.append(Int16(delta))
            } else if symbol == 2, let delta = reader.readUInt16() {
                deltas.append(Int16(bitPattern: delta))
            } else if symbol != 0 {
                parsed = false
            }
        }
        guard parsed else { return nil }
        self.init(senderSSRC: sender, mediaSSRC: media, baseSequenceNumber: base, packetStatusCount: statusCount,
                  referenceTime: Int32(bitPattern: reference << 8) >> 8, feedbackPacketCount: feedbackCount,
                  chunks: chunks, deltas: deltas)
    }

    /// Builds feedback for consecutive sequence numbers from `baseSequenceNumber`: nil for a
    /// packet not received, else its delta in ticks. At most 65535 arrivals are used.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: Int32,
                feedbackPacketCount: UInt8, arrivals: [Int16?]) {
        let arrivals = arrivals.prefix(0xffff)
        let symbols: [UInt8] = arrivals.map { delta in
            guard let delta else { return 0 }
            return delta >= 0 && delta <= 255 ? 1 : 2
        }
        var chunks: [UInt16] = []
        var index = 0
        while index < symbols.count {
            let symbol = symbols[index]
            var run = 1
            while index + run < symbols.count, symbols[index + run] == symbol, run < 0x1fff { run += 1 }
            let window = symbols[index..<min(index + 14, symbols.count)]
            if run >= 14 || run == symbols.count - index {
                chunks.append(UInt16(symbol) << 13 | UInt16(run))
                index += run
            } else if !window.contains(2) {
                var chunk: UInt16 = 0x8000
                for (bit, s) in window.enumerated() { chunk |= UInt16(s) << (13 - bit) }
                chunks.append(chunk)
                index += window.count
            } else {
                var chunk: UInt16 = 0xc000
                for (slot, s) in symbols[index..<min(index + 7, symbols.count)].enumerated() {
                    chunk |= UInt16(s) << (12 - 2 * slot)
                }
                chunks.append(chunk)
                index += min(7, symbols.count - index)
            }
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: baseSequenceNumber,
                  packetStatusCount: UInt16(arrivals.count), referenceTime: referenceTime,
                  feedbackPacketCount: feedbackPacketCount, chunks: chunks, deltas: arrivals.compactMap { $0 })
    }

    /// Calls `body` with the symbols of one chunk, at most `limit` of them.
    @inline(__always)
    static func forEachSymbol(in chunk: UInt16, limit: Int, _ body: (UInt8) -> Void) {
        if chunk & 0x8000 == 0 {
            let symbol = UInt8(chunk >> 13 & 0x3)
            for _ in 0..<min(Int(chunk & 0x1fff), limit) { body(symbol) }
        } else if chunk & 0x4000 == 0 {
            for bit in 0..<min(14, limit) { body(UInt8(chunk >> (13 - bit) & 0x1)) }
        } else {
            for slot in 0..<min(7, limit) { body(UInt8(chunk >> (12 - 2 * slot) & 0x3)) }
        }
    }

    static func forEachSymbol(in chunks: [UInt16], count: Int, _ body: (UInt8) -> Void) {
        var remaining = count
        for chunk in chunks where remaining > 0 {
            forEachSymbol(in: chunk, limit: remaining) { symbol in
                remaining -= 1
                body(symbol)
            }
        }
    }

    /// One result per sequence number, in order; stops early if chunks or deltas run short.
    /// Each packet's sequence number and arrival time in the receiver's clock (µs, the
    /// reference time plus the deltas so far), or nil for one not received. No allocation.
    public func forEachArrival(_ body: (_ sequenceNumber: UInt16, _ arrivalMicros: Int64?) -> Void) {
        var arrival = Int64(referenceTime) * Self.referenceTimeUnitMicros
        forEachPacket { result in
            guard result.status != .notReceived else { return body(result.sequenceNumber, nil) }
            arrival += Int64(result.delta) * Self.deltaTickMicros
            body(result.sequenceNumber, arrival)
        }
    }

    public func forEachPacket(_ body: (PacketResult) -> Void) {
        var sequence = baseSequenceNumber
        var deltaIndex = 0
        Self.forEachSymbol(in: chunks, count: Int(packetStatusCount)) { symbol in
            var result = PacketResult(sequenceNumber: sequence, status: .notReceived, delta: 0)
            if symbol == 1 || symbol == 2, deltaIndex < deltas.count {
                result.status = symbol == 1 ? .receivedSmallDelta : .receivedLargeDelta
                result.delta = deltas[deltaIndex]
                deltaIndex += 1
            }
            body(result)
            sequence &+= 1
        }
    }

    public var packets: [PacketResult] {
        var result: [PacketResult] = []
        result.reserveCapacity(Int(packetStatusCount))
        forEachPacket { result.append($0) }
        return result
    }

    var deltaBytes: Int {
        var bytes = 0
        Self.forEachSymbol(in: chunks, count: Int(packetStatusCount)) { bytes += Int($0 == 2 ? 2 : $0 == 1 ? 1 : 0) }
        return bytes
    }

    var unpaddedSize: Int { 20 + chunks.count * 2 + deltaBytes }

    /// Padded to 32 bits with the P bit, as libwebrtc sends it.
    public var serializedSize: Int { (unpaddedSize + 3) & ~3 }

    public func write(into writer: inout ByteWriter) {
        let size = serializedSize
        let padding = size - unpaddedSize
        writer.write(UInt8(padding > 0 ? 0xa0 : 0x80) | Self.format)
        writer.write(RTCPPacketType.transportFeedback)
        writer.write(UInt16(size / 4 - 1))
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        writer.write(baseSequenceNumber)
        writer.write(packetStatusCount)
        writer.writeUInt24(UInt32(bitPattern: referenceTime) & 0xff_ffff)
        writer.write(feedbackPacketCount)
        for chunk in chunks { writer.write(chunk) }
        var deltaIndex = 0
        Self.forEachSymbol(in: chunks, count: Int(packetStatusCount)) { symbol in
            guard symbol == 1 || symbol == 2 else { return }
            let delta = deltaIndex < deltas.count ? deltas[deltaIndex] : 0
            deltaIndex += 1
            if symbol == 1 {
                writer.write(UInt8(truncatingIfNeeded: delta))
            } else {
                writer.write(UInt16(bitPattern: delta))
            }
        }
        if padding > 0 {
            writer.write(zeros: padding - 1)
            writer.write(UInt8(padding))
        }
    }
}
