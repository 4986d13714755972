#if canImport(SluiceTransport)
import SluiceWire

/// Drives a publishing `PeerConnection` from synthetic sources: on every worker tick it sends
/// the VP8 frames and Opus packets that are due, each packet written straight into a pool
/// buffer, and it answers PLI and FIR with a key frame. Set it as the connection's delegate
/// (it forwards nothing else). Worker thread only, except `stats` (racy reads are fine for
/// progress lines).
public final class SyntheticPublisher: PeerConnectionDelegate {
    public var video: SyntheticVP8Source?
    public var audio: SyntheticOpusSource?
    /// Frames or audio packets the connection could not send (pool empty, not connected).
    public private(set) var sendFailures: UInt64 = 0

    public init(video: SyntheticVP8Source.Configuration? = .init(), audio: Bool = true, audioPacketSize: Int = 100) {
        self.video = video.map(SyntheticVP8Source.init)
        self.audio = audio ? SyntheticOpusSource(packetSize: audioPacketSize) : nil
    }

    public func peerConnection(_ connection: PeerConnection, tick now: UInt64) {
        if video != nil {
            while let frame = video?.nextFrame(now: now) {
                for index in 0..<frame.packetCount {
                    let sent = connection.send(.video, marker: frame.isLastPacket(index), timestamp: frame.rtpTimestamp,
                                               now: now) { payload in
                        frame.writePacket(index, into: payload, sendTime: MonotonicClock.nowMicros())
                    }
                    if !sent { sendFailures += 1 }
                }
            }
        }
        if audio != nil {
            while let timestamp = audio?.nextPacket(now: now), let source = audio {
                let sent = connection.send(.audio, marker: false, timestamp: timestamp, now: now) { payload in
                    source.writePacket(into: payload, sendTime: MonotonicClock.nowMicros())
                }
                if !sent { sendFailures += 1 }
            }
        }
    }

    public func peerConnectionDidRequestKeyFrame(_ connection: PeerConnection, now: UInt64) {
        video?.requestKeyFrame()
    }
}
#endif
