import SluiceClient
import Testing

struct RTCPKeyFrameRequestTests {
    // Receiver report (no blocks) from SSRC 5, then a PLI from 5 for media SSRC 0x01020304.
    static let rrThenPLI: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 5,
                                     0x81, 206, 0, 2, 0, 0, 0, 5, 1, 2, 3, 4]
    // FIR (PSFB fmt 4) from 5, media 0, one entry: SSRC 0x0A0B0C0D, seq 1.
    static let fir: [UInt8] = [0x84, 206, 0, 4, 0, 0, 0, 5, 0, 0, 0, 0, 0x0A, 0x0B, 0x0C, 0x0D, 1, 0, 0, 0]

    @Test(arguments: [
        (rrThenPLI, UInt32(0x0102_0304), true),
        (rrThenPLI, UInt32(99), false),
        (fir, UInt32(0x0A0B_0C0D), true),
        (fir, UInt32(0x0102_0304), false),
        (Array(rrThenPLI.prefix(14)), UInt32(0x0102_0304), false),  // truncated PLI
        ([0x80, 201, 0, 1, 0, 0, 0, 5], UInt32(5), false),
        ([], UInt32(1), false),
    ] as [([UInt8], UInt32, Bool)])
    func finds(bytes: [UInt8], ssrc: UInt32, expected: Bool) {
        #expect(bytes.withUnsafeBytes { RTCPKeyFrameRequest.contains($0, mediaSSRC: ssrc) } == expected)
    }
}
