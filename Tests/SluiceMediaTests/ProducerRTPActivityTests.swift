import SluiceTransport
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// "Failed by RTP activity": a producer fed synthetic RTP through its delegate and ticked with
/// synthetic times (its transport is never connected, which the check does not need).
struct ProducerRTPActivityTests {
    private static let second: UInt64 = 1_000_000
    /// Times far from 0, as the monotonic clock's are.
    private static let start: UInt64 = 1_000 * second

    private final class Setup {
        let worker: MediaWorker
        let producer: Producer
        var events: [WorkerEvent] = []
        var sequence: UInt16 = 1

        init(timeoutSeconds: UInt64) throws {
            worker = try MediaTestSupport.worker()
            let endpoint = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack())
            producer = Producer(parameters: endpoint, transport: try MediaTestSupport.transport(worker, endpoint),
                                statsBoard: nil)
            producer.rtpActivity = RTPActivityWatch(timeoutMicros: timeoutSeconds * ProducerRTPActivityTests.second)
            producer.report = { [unowned self] in self.events.append($0) }
        }

        deinit { producer.releaseBuffers() }

        func receive(_ bytes: [UInt8], now: UInt64) {
            var copy = bytes
            copy.withUnsafeMutableBytes { producer.transport(producer.transport, didReceiveRTP: $0, now: now) }
        }

        /// A VP8 packet with media.
        func media(now: UInt64) {
            receive(MediaTestSupport.vp8Packet(ssrc: 77, sequence: sequence, timestamp: UInt32(sequence) * 3000,
                                               keyFrame: sequence == 1), now: now)
            sequence &+= 1
        }

        /// A padding-only packet (a bandwidth probe): P bit set, the payload all padding.
        func padding(now: UInt64) {
            var bytes = Array(MediaTestSupport.vp8Packet(ssrc: 77, sequence: sequence, timestamp: 0).prefix(12))
            bytes[0] |= 0x20
            // 255 bytes of padding; the last byte counts them, itself included.
            bytes += [UInt8](repeating: 0, count: 254) + [255]
            receive(bytes, now: now)
            sequence &+= 1
        }

        var rtpFailures: Int {
            events.filter { $0 == .failed("h", .rtpActivity) }.count
        }
    }

    @Test func noFailureBeforeTheFirstPacket() throws {
        let s = try Setup(timeoutSeconds: 2)
        for t in 0..<30 { s.producer.tick(now: Self.start + UInt64(t) * Self.second) }
        #expect(s.rtpFailures == 0)
        #expect(s.events.isEmpty, "\(s.events)")
    }

    @Test func noFailureWhilePacketsArrive() throws {
        let s = try Setup(timeoutSeconds: 2)
        // 20 s of media, a packet every 100 ms, a tick every second.
        for i in 0..<200 {
            let now = Self.start + UInt64(i) * Self.second / 10
            s.media(now: now)
            if i % 10 == 0 { s.producer.tick(now: now) }
        }
        #expect(s.rtpFailures == 0)
        #expect(s.events.first == .publishing("h"))
    }

    /// Exactly one failure, at the first tick at or past the timeout, however long the silence.
    @Test func failsOnceAfterTheTimeout() throws {
        let s = try Setup(timeoutSeconds: 2)
        s.media(now: Self.start)
        s.media(now: Self.start + Self.second / 2)
        let last = Self.start + Self.second / 2
        s.producer.tick(now: last + Self.second)
        s.producer.tick(now: last + 2 * Self.second - 1)
        #expect(s.rtpFailures == 0)
        s.producer.tick(now: last + 2 * Self.second + Self.second / 10)
        #expect(s.rtpFailures == 1)
        for t in 3..<20 { s.producer.tick(now: last + UInt64(t) * Self.second) }
        #expect(s.rtpFailures == 1)
    }

    /// Padding is RTP but no media: a publisher that only pads after its media stopped fails
    /// all the same, counted from its last media packet.
    @Test func paddingIsNoActivity() throws {
        let s = try Setup(timeoutSeconds: 2)
        s.media(now: Self.start)
        for i in 1...40 {
            let now = Self.start + UInt64(i) * Self.second / 10
            s.padding(now: now)
            if i % 10 == 0 { s.producer.tick(now: now) }
        }
        #expect(s.producer.stats(now: Self.start + 4 * Self.second).video?.packets == 41,
                "the padding did arrive and was counted")
        #expect(s.rtpFailures == 1)
    }

    /// A publisher whose first packets are padding and which never sends media is caught too:
    /// the clock starts at its first packet (PUBLISHING).
    @Test func onlyPaddingFromTheStartFails() throws {
        let s = try Setup(timeoutSeconds: 2)
        s.padding(now: Self.start)
        s.producer.tick(now: Self.start + Self.second)
        #expect(s.rtpFailures == 0)
        s.producer.tick(now: Self.start + 2 * Self.second)
        #expect(s.rtpFailures == 1)
    }

    @Test func zeroTurnsTheCheckOff() throws {
        let s = try Setup(timeoutSeconds: 0)
        s.media(now: Self.start)
        for t in 1...60 { s.producer.tick(now: Self.start + UInt64(t) * Self.second) }
        #expect(s.rtpFailures == 0)
    }

    /// Media again before the timeout resets the clock.
    @Test func mediaResetsTheClock() throws {
        let s = try Setup(timeoutSeconds: 2)
        s.media(now: Self.start)
        s.producer.tick(now: Self.start + Self.second + Self.second / 2)
        s.media(now: Self.start + Self.second + Self.second * 9 / 10)
        s.producer.tick(now: Self.start + 3 * Self.second)
        #expect(s.rtpFailures == 0)
        s.producer.tick(now: Self.start + 4 * Self.second)
        #expect(s.rtpFailures == 1)
    }
}
