import SluiceClient
import SluiceTestMedia
import Testing

struct SyntheticOpusSourceTests {
    @Test func fiftyPacketsPerSecondOf960Samples() throws {
        var source = SyntheticOpusSource(packetSize: 100)
        var timestamps: [UInt32] = []
        // Polled every 10 ms for one second.
        for tick in 0..<100 {
            while let timestamp = source.nextPacket(now: 2_000_000 + UInt64(tick) * 10_000) { timestamps.append(timestamp) }
        }
        #expect(timestamps.count == 50)
        for i in 1..<timestamps.count { #expect(timestamps[i] &- timestamps[i - 1] == 960) }
    }

    @Test func payloadCarriesTOCAndSendTime() {
        let source = SyntheticOpusSource(packetSize: 100)
        var bytes = [UInt8](repeating: 0, count: 200)
        let length = bytes.withUnsafeMutableBytes { source.writePacket(into: $0, sendTime: 42_000_000) }
        #expect(length == 100)
        #expect(bytes[0] == 0xF8)
        #expect(bytes.withUnsafeBytes { SendTimeProbe.read(opusPayload: UnsafeRawBufferPointer(rebasing: $0[0..<length])) } == 42_000_000)
        var small = [UInt8](repeating: 0, count: 50)
        #expect(small.withUnsafeMutableBytes { source.writePacket(into: $0, sendTime: 0) } == 0)
    }
}
