import SluiceClient
import SluiceTestMedia
import SluiceRTP
import SluiceWire
import Synchronization

/// What one player records, on its worker thread, for every RTP packet: sequence continuity,
/// loss, duplicates, key frames and one-way delay per kind (the SDK's `ReceivedStreamStats`).
/// Nothing is decoded. The lock is never contended on the packet path except by the
/// once-a-second sampler.
public final class PlayerProbe: PeerConnectionDelegate, @unchecked Sendable {
    public struct State {
        public var video = ReceivedStreamStats(codec: .vp8)
        public var audio = ReceivedStreamStats(codec: .opus)
        /// `--player-receive headers`: delays from the server's abs-send-time stamp, both kinds.
        public var stampedDelay = DelayHistogram()
        /// RTP packets of any kind, also those whose payload type matched neither.
        public var packets: UInt64 = 0
        public var unknownKind: UInt64 = 0
        public var firstPacketMicros: UInt64?
        public var failure: String?
    }

    private let state = Mutex(State())

    public init() {}

    /// The player asks to play now: what the publisher sent before (the server's key-frame
    /// cache, replayed at the join) adds no delay sample.
    public func playing(now: UInt64 = MonotonicClock.nowMicros()) {
        state.withLock { s in
            s.video.delayNotBefore = now
            s.audio.delayNotBefore = now
        }
    }

    public func peerConnection(_ connection: PeerConnection, didReceiveRTP packet: RTPPacket, kind: TrackKind?, now: UInt64) {
        state.withLock { s in
            s.packets += 1
            if s.firstPacketMicros == nil { s.firstPacketMicros = now }
            switch kind {
            case .video: s.video.record(packet, now: now)
            case .audio: s.audio.record(packet, now: now)
            case nil: s.unknownKind += 1
            }
        }
    }

    /// `--player-receive headers` (`PlayerHeaderReceiver`): `packet` is the header alone, so
    /// the stats count its sequence and see an empty payload (no key frame, no payload stamp).
    public func recordHeader(_ packet: RTPPacket, kind: TrackKind?, delayMicros: UInt64?, now: UInt64) {
        state.withLock { s in
            s.packets += 1
            if s.firstPacketMicros == nil { s.firstPacketMicros = now }
            let duplicates = s.video.duplicates + s.audio.duplicates
            switch kind {
            case .video: s.video.record(packet, now: now)
            case .audio: s.audio.record(packet, now: now)
            case nil: s.unknownKind += 1
            }
            // As in the full mode, a duplicate adds no delay sample.
            if let delayMicros, s.video.duplicates + s.audio.duplicates == duplicates {
                s.stampedDelay.record(micros: delayMicros)
            }
        }
    }

    public func peerConnection(_ connection: PeerConnection, didFail info: String) {
        state.withLock { $0.failure = info }
    }

    /// The scalar figures (cheap: copies no histogram).
    public var counts: ContinuityCounts {
        state.withLock { ContinuityCounts(video: $0.video, audio: $0.audio, packets: $0.packets) }
    }

    public var firstPacketMicros: UInt64? { state.withLock { $0.firstPacketMicros } }
    public var failure: String? { state.withLock { $0.failure } }

    /// Adds this player's delays (both kinds) to `distribution`.
    public func addDelays(to distribution: inout DelayDistribution) {
        state.withLock { s in
            distribution.add(s.video.delay)
            distribution.add(s.audio.delay)
            distribution.add(s.stampedDelay)
        }
    }

    /// Everything, for the final report.
    public var finalState: State { state.withLock { $0 } }
}
