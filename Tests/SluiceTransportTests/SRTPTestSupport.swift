@testable import SluiceTransport

/// Runs `body` over a copy of `packet` in a buffer with room for any trailer; the bytes after,
/// or nil when `body` refused the packet.
func srtpInPlace(_ packet: [UInt8], _ body: (UnsafeMutableRawPointer, inout Int, Int) -> Bool) -> [UInt8]? {
    var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
    var length = packet.count
    let capacity = buffer.count
    let ok = buffer.withUnsafeMutableBytes { body($0.baseAddress!, &length, capacity) }
    return ok ? Array(buffer.prefix(length)) : nil
}

extension SRTPSession {
    func protectedRTP(_ packet: [UInt8]) -> [UInt8]? {
        srtpInPlace(packet) { protectRTP($0, length: &$1, capacity: $2) }
    }

    func unprotectedRTP(_ packet: [UInt8]) -> [UInt8]? {
        srtpInPlace(packet) { p, l, _ in unprotectRTP(p, length: &l) }
    }

    func protectedRTCP(_ packet: [UInt8]) -> [UInt8]? {
        srtpInPlace(packet) { protectRTCP($0, length: &$1, capacity: $2) }
    }

    func unprotectedRTCP(_ packet: [UInt8]) -> [UInt8]? {
        srtpInPlace(packet) { p, l, _ in unprotectRTCP(p, length: &l) }
    }
}

extension OpenSSLSRTPContext {
    func apply(_ packet: [UInt8], _ body: (OpenSSLSRTPContext, UnsafeMutableRawPointer, inout Int) -> SRTPFailure)
        -> (SRTPFailure, [UInt8]) {
        var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
        var length = packet.count
        let failure = buffer.withUnsafeMutableBytes { body(self, $0.baseAddress!, &length) }
        return (failure, Array(buffer.prefix(length)))
    }
}

/// `SplitMix` (RFC4571FrameDecoderTests) as the standard library's generator, so a failing
/// random case repeats.
extension SplitMix: RandomNumberGenerator {
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}

enum SRTPTestPackets {
    /// An RTP packet: version 2, `csrcs` CSRCs, an RFC 8285 one-byte extension of
    /// `extensionWords` words when nonzero, and a random payload.
    static func rtp(ssrc: UInt32, sequence: UInt16, payloadLength: Int, csrcs: Int = 0, extensionWords: Int = 0,
                    using generator: inout SplitMix) -> [UInt8] {
        let first = UInt8(0x80 | (extensionWords > 0 ? 0x10 : 0) | UInt8(csrcs))
        var packet: [UInt8] = [first, 0x60, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        packet += generator.bytes(4)  // timestamp
        packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        packet += generator.bytes(4 * csrcs)
        if extensionWords > 0 {
            packet += [0xBE, 0xDE, 0, UInt8(extensionWords)] + generator.bytes(4 * extensionWords)
        }
        return packet + generator.bytes(payloadLength)
    }

    /// A receiver report from `ssrc` with `words` more words of random body.
    static func rtcp(ssrc: UInt32, words: Int, using generator: inout SplitMix) -> [UInt8] {
        let length = UInt16(1 + words)
        return [0x81, 201, UInt8(length >> 8), UInt8(length & 0xFF)] + withUnsafeBytes(of: ssrc.bigEndian, Array.init)
            + generator.bytes(4 * words)
    }
}
