import SluiceRTP
import SluiceWire

/// What one player reports back: key-frame requests (PLI, FIR), NACKs, receiver reports
/// (loss, jitter, round trip) and its bandwidth feedback (transport-cc or REMB), read into
/// the bandwidth estimate. It decides nothing about forwarding: each RTCP packet yields a
/// `PlayerFeedback.Action` that the consumer carries out.
struct PlayerFeedback {
    enum Action {
        case none
        /// The player lost its picture: ask the source for a key frame.
        case keyFrame
        /// The estimate fell: choose the layer again now rather than at the next tick.
        case reselect
        /// Resend these.
        case retransmit(RTCPGenericNACK)
    }

    /// Estimated bandwidth towards the player (kbit/s): from its transport-cc feedback, or
    /// from its REMB raised by clean probes; capped by loss.
    var estimate = BandwidthEstimate()
    private(set) var rttMillis: Double = 0
    private(set) var remoteFractionLost: Double = 0
    private(set) var remoteJitterMs: Double = 0
    private(set) var remoteLost: Int64 = 0
    private(set) var haveReceiverReport = false
    private(set) var plisReceived: UInt64 = 0
    private(set) var firsReceived: UInt64 = 0
    private(set) var nacksReceived: UInt64 = 0
    /// Our SSRCs towards this player: what its reports are about.
    let audioSSRC: UInt32?
    let videoSSRC: UInt32?

    init(audioSSRC: UInt32?, videoSSRC: UInt32?) {
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
    }

    var bandwidthKbps: Double? { estimate.kbps }

    /// A fall below this share of the last estimate is acted on at once; a rise waits for the tick.
    static let fall = 0.85

    /// One packet of the player's compound RTCP. `history` is what was sent (for
    /// transport-cc), `prober` hears of loss and queueing while it probes.
    mutating func receive(_ packet: RTCPPacket, history: SendHistory, sentKbps: Double, videoKbps: Double,
                          prober: inout Prober, now: UInt64) -> Action {
        switch packet.packetType {
        case RTCPPacketType.payloadFeedback where packet.count == 1:
            plisReceived += 1
            return .keyFrame
        case RTCPPacketType.payloadFeedback where packet.count == 4:
            firsReceived += 1
            return .keyFrame
        case RTCPPacketType.payloadFeedback where packet.count == 15:
            guard let remb = RTCPREMB(parsing: packet.bytes) else { return .none }
            let previous = bandwidthKbps
            estimate.received(remb: Double(remb.bitrate) / 1000, now: now)
            if let previous, let current = bandwidthKbps, current < previous * Self.fall { return .reselect }
        case RTCPPacketType.transportFeedback where packet.count == RTCPTransportWideCC.format:
            guard let feedback = RTCPTransportWideCC(parsing: packet.bytes) else { return .none }
            let previous = bandwidthKbps
            estimate.received(feedback, history: history, sentKbps: sentKbps, now: now)
            if prober.isProbing, estimate.sendSide.congested(since: prober.start) { prober.spoil() }
            if let current = bandwidthKbps, current < (previous ?? .infinity) * Self.fall { return .reselect }
        case RTCPPacketType.transportFeedback where packet.count == 1:
            nacksReceived += 1
            if let nack = RTCPGenericNACK(parsing: packet.bytes), nack.mediaSSRC == videoSSRC { return .retransmit(nack) }
        case RTCPPacketType.receiverReport:
            guard let rr = RTCPReceiverReport(parsing: packet.bytes) else { return .none }
            return receive(rr, videoKbps: videoKbps, prober: &prober)
        default:
            break
        }
        return .none
    }

    private mutating func receive(_ rr: RTCPReceiverReport, videoKbps: Double, prober: inout Prober) -> Action {
        var action = Action.none
        for block in rr.reportBlocks where block.ssrc == videoSSRC || block.ssrc == audioSSRC {
            haveReceiverReport = true
            remoteFractionLost = Double(block.fractionLost) / 256
            if block.ssrc == videoSSRC {
                if remoteFractionLost > Prober.lossLimit { prober.spoil() }
                let previous = bandwidthKbps
                estimate.received(lossFraction: remoteFractionLost, sentKbps: videoKbps)
                if let previous, let current = bandwidthKbps, current < previous * Self.fall { action = .reselect }
            }
            remoteLost = Int64(block.cumulativeLost)
            let clock = block.ssrc == videoSSRC ? 90_000.0 : 48_000.0
            remoteJitterMs = Double(block.jitter) * 1000 / clock
            if block.lastSenderReport != 0 {
                let nowNTP = UInt32(truncatingIfNeeded: MonotonicClock.ntpNow() >> 16)
                let rtt = nowNTP &- block.lastSenderReport &- block.delaySinceLastSenderReport
                if rtt < 65536 * 10 { rttMillis = Double(rtt) * 1000 / 65536 }
            }
        }
        return action
    }
}
