import SluiceDataChannel
import Testing
@testable import SluiceServer

/// The data channel families of /metrics: players' channels of one label summed, each
/// direction its own sample.
@Suite struct AdminDataChannelMetricsTests {
    func channel(_ label: String, received: UInt64, sent: UInt64, dropped: UInt64 = 0) -> DataChannelStats {
        var stats = DataChannelStats(id: 1, label: label, protocol: "", reliability: .reliableOrdered)
        stats.messagesReceived = received
        stats.bytesReceived = received * 10
        stats.messagesSent = sent
        stats.bytesSent = sent * 10
        stats.messagesDropped = dropped
        return stats
    }

    @Test func sumsPlayersByLabel() {
        let text = PrometheusText.render(AdminDataChannelMetrics.families([
            ("pub-1", "cam", .publish, [channel("chat", received: 5, sent: 1)]),
            ("play-1", "cam", .play, [channel("chat", received: 1, sent: 5, dropped: 2)]),
            ("play-2", "cam", .play, [channel("chat", received: 0, sent: 5), channel("cc", received: 0, sent: 3)]),
        ]))
        #expect(text.contains(#"sluice_datachannel_messages_total{stream="cam",role="play",label="chat",direction="sent"} 10"#))
        #expect(text.contains(#"sluice_datachannel_messages_total{stream="cam",role="publish",label="chat",direction="received"} 5"#))
        #expect(text.contains(#"sluice_datachannel_bytes_total{stream="cam",role="play",label="cc",direction="sent"} 30"#))
        #expect(text.contains(#"sluice_datachannel_messages_dropped_total{stream="cam",role="play",label="chat"} 2"#))
        #expect(text.contains(#"sluice_datachannel_channels{stream="cam",role="play",label="chat"} 2"#))
    }
}
