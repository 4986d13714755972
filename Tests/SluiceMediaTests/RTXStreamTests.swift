import SluiceRTP
import SluiceVocabulary
import SluiceWire
import Testing
@testable import SluiceMedia

struct RTXStreamTests {
    static func video(rtxPayloadType: UInt8? = 97, rtxSSRC: UInt32? = 0xBEEF_0002) -> TrackParameters {
        var track = TrackParameters(kind: .video, mid: "1", codecName: "VP8", fmtp: "", payloadType: 96,
                                    rtxPayloadType: rtxPayloadType, clockRate: 90000,
                                    extensions: NegotiatedExtensions(mid: 9, absSendTime: 2), remoteSSRCs: [],
                                    remoteRTXSSRCs: [], localSSRC: 0xBEEF_0001, feedback: .init(nack: true))
        track.localRTXSSRC = rtxSSRC
        return track
    }

    /// RFC 4588 section 4: RTX payload type, RTX SSRC and the RTX stream's own sequence number
    /// in the header; the original's marker, timestamp and extensions; the original sequence
    /// number (OSN) as the first two payload bytes, then the original payload.
    @Test func packetLayout() throws {
        var rtx = try #require(RTXStream(track: Self.video(), initialSequence: 0x1234))
        var bytes = [UInt8](repeating: 0, count: 200)
        let original: [UInt8] = [0x90, 0x80, 0x00, 0x2a, 0xaa, 0xbb, 0xcc]  // a VP8 descriptor and data
        let length = try bytes.withUnsafeMutableBytes { raw -> Int in
            var writer = ByteWriter(raw)
            var extensions = RTPHeaderExtensionList()
            _ = Array("1".utf8).withUnsafeBytes { extensions.append(id: 9, value: $0) }
            _ = extensions.append(id: 2, uint24: 0x0A0B0C)
            let offset = try #require(rtx.writeHeader(into: &writer, marker: true, timestamp: 0x0102_0304,
                                                      originalSequence: 0xFFFE, extensions: extensions))
            #expect(offset == writer.offset)
            original.withUnsafeBytes { writer.write(bytes: $0) }
            return writer.offset
        }
        try bytes.withUnsafeMutableBytes { raw in
            let packet = try #require(RTPPacket(parsing: UnsafeMutableRawBufferPointer(rebasing: raw[0..<length])))
            #expect(packet.payloadType == 97)
            #expect(packet.ssrc == 0xBEEF_0002)
            #expect(packet.sequenceNumber == 0x1234)
            #expect(packet.timestamp == 0x0102_0304)
            #expect(packet.marker)
            #expect(packet.extensionValue(id: 9).map { Array($0) } == Array("1".utf8))
            #expect(packet.extensionValue(id: 2).map { Array($0) } == [0x0A, 0x0B, 0x0C])
            #expect(Array(packet.payload) == [0xFF, 0xFE] + original)
        }
        #expect(rtx.nextSequence == 0x1235)
    }

    /// One sequence number per RTX packet, wrapping, independent of the OSNs carried.
    @Test func sequenceAdvancesByOnePerPacketAndWraps() throws {
        var rtx = try #require(RTXStream(track: Self.video(), initialSequence: 0xFFFE))
        var seen: [UInt16] = []
        var bytes = [UInt8](repeating: 0, count: 64)
        for osn: UInt16 in [500, 400, 500] {
            bytes.withUnsafeMutableBytes { raw in
                var writer = ByteWriter(raw)
                _ = rtx.writeHeader(into: &writer, marker: false, timestamp: 0, originalSequence: osn,
                                    extensions: RTPHeaderExtensionList())
                seen.append(RTPPacket(parsing: raw)?.sequenceNumber ?? 0)
            }
        }
        #expect(seen == [0xFFFE, 0xFFFF, 0])
    }

    /// Too small a buffer: nil, so the caller drops the packet.
    @Test func overflowIsReported() throws {
        var rtx = try #require(RTXStream(track: Self.video()))
        var bytes = [UInt8](repeating: 0, count: 13)
        bytes.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            #expect(rtx.writeHeader(into: &writer, marker: false, timestamp: 0, originalSequence: 1,
                                    extensions: RTPHeaderExtensionList()) == nil)
        }
    }

    /// Only a video track with both the RTX payload type and the server's RTX SSRC gets a
    /// stream; otherwise NACKs are answered on the media SSRC.
    @Test func onlyWhenNegotiated() {
        #expect(RTXStream(track: Self.video()) != nil)
        #expect(RTXStream(track: Self.video(rtxPayloadType: nil)) == nil)
        #expect(RTXStream(track: Self.video(rtxSSRC: nil)) == nil)
        var audio = Self.video()
        audio.kind = .audio
        #expect(RTXStream(track: audio) == nil)
        #expect(OutgoingTrack(parameters: Self.video()).rtx?.ssrc == 0xBEEF_0002)
        #expect(OutgoingTrack(parameters: Self.video()).rtx?.payloadType == 97)
        #expect(OutgoingTrack(parameters: Self.video(rtxSSRC: nil)).rtx == nil)
    }
}
