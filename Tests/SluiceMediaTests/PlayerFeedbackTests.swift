import SluiceRTP
import SluiceWire
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// Each RTCP packet a player may send, written by SluiceRTP's own writers, and the action
/// `PlayerFeedback` turns it into.
private func actions(_ feedback: inout PlayerFeedback, prober: inout Prober,
                     _ write: (inout ByteWriter) -> Void) -> [PlayerFeedback.Action] {
    var bytes = [UInt8](repeating: 0, count: 1500)
    return bytes.withUnsafeMutableBytes { raw in
        var writer = ByteWriter(raw)
        write(&writer)
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(rebasing: raw[0..<writer.offset]))
        var result: [PlayerFeedback.Action] = []
        while let (packet, _) = iterator.next() {
            result.append(feedback.receive(packet, history: SendHistory(enabled: false), sentKbps: 0, videoKbps: 800,
                                           prober: &prober, now: 5_000_000))
        }
        return result
    }
}

private let audioSSRC: UInt32 = 0xA0
private let videoSSRC: UInt32 = 0xB0

struct PlayerFeedbackTests {
    @Test func pliAndFirAskForAKeyFrame() {
        var feedback = PlayerFeedback(audioSSRC: audioSSRC, videoSSRC: videoSSRC)
        var prober = Prober()
        let got = actions(&feedback, prober: &prober) { writer in
            RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: videoSSRC).write(into: &writer)
        }
        guard case .keyFrame = got.first else {
            Issue.record("a PLI gave \(got)")
            return
        }
        #expect(feedback.plisReceived == 1)
    }

    /// A NACK for our video SSRC is to be answered; one for another SSRC is not.
    @Test func nackForOurVideoIsRetransmitted() {
        var feedback = PlayerFeedback(audioSSRC: audioSSRC, videoSSRC: videoSSRC)
        var prober = Prober()
        let ours = actions(&feedback, prober: &prober) { writer in
            RTCPGenericNACK(senderSSRC: 1, mediaSSRC: videoSSRC, lostSequenceNumbers: [7, 9]).write(into: &writer)
        }
        guard case .retransmit(let nack) = ours.first else {
            Issue.record("a NACK gave \(ours)")
            return
        }
        var lost: [UInt16] = []
        for pair in nack.pairs { pair.forEachLost { lost.append($0) } }
        #expect(lost == [7, 9])
        let other = actions(&feedback, prober: &prober) { writer in
            RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0xDEAD, lostSequenceNumbers: [7]).write(into: &writer)
        }
        guard case .some(.none) = other.first else {
            Issue.record("a NACK for another SSRC gave \(other)")
            return
        }
        #expect(feedback.nacksReceived == 2)
    }

    /// A receiver report about our video sets loss and jitter, and loss while probing spoils it.
    @Test func receiverReportSetsLossAndJitter() {
        var feedback = PlayerFeedback(audioSSRC: audioSSRC, videoSSRC: videoSSRC)
        var prober = Prober()
        _ = actions(&feedback, prober: &prober) { writer in
            RTCPReceiverReport(ssrc: 1, reportBlocks: [
                RTCPReportBlock(ssrc: videoSSRC, fractionLost: 64, cumulativeLost: 12, extendedHighestSequenceNumber: 100,
                                jitter: 900, lastSenderReport: 0, delaySinceLastSenderReport: 0),
            ]).write(into: &writer)
        }
        #expect(feedback.haveReceiverReport)
        #expect(feedback.remoteFractionLost == 0.25)
        #expect(feedback.remoteLost == 12)
        #expect(feedback.remoteJitterMs == 10)
    }

    /// A falling REMB makes the consumer choose again at once.
    @Test func aFallingREMBReselects() {
        var feedback = PlayerFeedback(audioSSRC: audioSSRC, videoSSRC: videoSSRC)
        var prober = Prober()
        _ = actions(&feedback, prober: &prober) { writer in
            RTCPREMB(senderSSRC: 1, bitrate: 2_000_000, ssrcs: [videoSSRC]).write(into: &writer)
        }
        #expect(feedback.bandwidthKbps == 2000)
        let fell = actions(&feedback, prober: &prober) { writer in
            RTCPREMB(senderSSRC: 1, bitrate: 500_000, ssrcs: [videoSSRC]).write(into: &writer)
        }
        guard case .reselect = fell.first else {
            Issue.record("a falling REMB gave \(fell)")
            return
        }
    }
}

struct ProberTests {
    private static let layers = [
        LayerSelector.Layer(index: 0, width: 320, height: 180, fps: 30, bitrateKbps: 150),
        LayerSelector.Layer(index: 1, width: 640, height: 360, fps: 30, bitrateKbps: 500),
        LayerSelector.Layer(index: 2, width: 1280, height: 720, fps: 30, bitrateKbps: 1500),
    ]

    /// Held down by bandwidth with no loss: a REMB player is probed one layer up, padded by the
    /// difference, and a clean probe raises the estimate.
    @Test func probesOneLayerUpOverREMB() {
        var prober = Prober()
        var estimate = BandwidthEstimate()
        estimate.received(remb: 800, now: 1_000_000)
        let choice = LayerSelector.Choice(layer: 1, reason: .bandwidth, notEnoughBandwidth: false)
        prober.consider(choice: choice, layers: Self.layers, constraints: VideoConstraints(), current: 1,
                        remoteFractionLost: 0, estimate: &estimate, now: 2_000_000)
        #expect(prober.isProbing)
        #expect(prober.totalKbps == 1500 * 1.4)
        #expect(prober.paddingKbps == 1500 * 1.4 - 500)
        #expect(prober.until == 2_000_000 + Prober.probeMicros)
        #expect(prober.stop(estimate: &estimate, now: 4_000_000))
        #expect((estimate.kbps ?? 0) >= 2100)
    }

    /// Loss during a probe calls it off, unclean; a layer chosen by constraints is never probed.
    @Test func lossStopsAProbeAndConstraintsNeverStartOne() {
        var prober = Prober()
        var estimate = BandwidthEstimate()
        estimate.received(remb: 600, now: 1_000_000)
        prober.consider(choice: .init(layer: 1, reason: .constraints, notEnoughBandwidth: false), layers: Self.layers,
                        constraints: VideoConstraints(), current: 1, remoteFractionLost: 0, estimate: &estimate,
                        now: 2_000_000)
        #expect(!prober.isProbing)
        let bandwidth = LayerSelector.Choice(layer: 1, reason: .bandwidth, notEnoughBandwidth: false)
        prober.consider(choice: bandwidth, layers: Self.layers, constraints: VideoConstraints(), current: 1,
                        remoteFractionLost: 0, estimate: &estimate, now: 2_000_000)
        #expect(prober.isProbing)
        prober.consider(choice: bandwidth, layers: Self.layers, constraints: VideoConstraints(), current: 1,
                        remoteFractionLost: 0.1, estimate: &estimate, now: 2_500_000)
        #expect(!prober.isProbing)
        #expect(estimate.kbps == 600)
    }

    /// A prober asked, with no loss, over a REMB of `remb`, while bandwidth holds the player on
    /// `layer` (below even the lowest layer's rate when `notEnough`).
    private func considered(remb: Double, layer: Int, notEnough: Bool = false) -> Prober {
        var prober = Prober()
        var estimate = BandwidthEstimate()
        estimate.received(remb: remb, now: 1_000_000)
        prober.consider(choice: .init(layer: layer, reason: .bandwidth, notEnoughBandwidth: notEnough),
                        layers: Self.layers, constraints: VideoConstraints(), current: layer, remoteFractionLost: 0,
                        estimate: &estimate, now: 2_000_000)
        return prober
    }

    /// A probe tests at most three times the estimate (and at least the lowest layer's rate
    /// with headroom): under a link that cannot carry the lowest layer it pads that little.
    @Test func aProbeClimbsAtMostThreeTimesTheEstimate() {
        let prober = considered(remb: 300, layer: 1)
        #expect(prober.totalKbps == 900)
        #expect(prober.paddingKbps == 400)
        let low = considered(remb: 40, layer: 0, notEnough: true)
        #expect(low.totalKbps == 150 * 1.3)
        #expect(low.paddingKbps == 50)
    }

    /// Padding packets larger than a tick's share go out at the probe's rate, not one a tick:
    /// a second of 10 ms ticks at 50 kbit/s sends 6,250 bytes, give or take one packet.
    @Test func paddingKeepsTheProbesRateWithPacketsLargerThanATicksShare() {
        var prober = considered(remb: 40, layer: 0, notEnough: true)
        #expect(prober.paddingKbps == 50)
        var sent = 0
        for _ in 0..<100 {
            var credit = prober.tickCredit(tickMicros: 10_000)
            while credit > 0 {
                prober.spent(280)
                sent += 280
                credit -= 280
            }
        }
        #expect(abs(sent - 6_250) <= 280)
    }

    @Test func budgetIsTheTicksShareOfThePaddingRate() {
        let prober = considered(remb: 800, layer: 1)
        // 1600 kbit/s for 10 ms is 2000 bytes.
        #expect(prober.budget(tickMicros: 10_000) == 2000)
    }
}
