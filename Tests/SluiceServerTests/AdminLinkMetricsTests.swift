import SluiceControl
import Testing
@testable import SluiceServer

/// The links' packet families: the node's total as a counter, each live link's count by edge
/// and stream.
struct AdminLinkMetricsTests {
    @Test func linkPacketsByTotalAndByLink() {
        var input = AdminLinkMetrics.Input()
        input.packets.total = 1234
        input.packets.links = [LinkPacketFigures.Link(link: "l1", stream: "cam", edgeNode: "node2", packets: 1000)]
        let text = PrometheusText.render(AdminLinkMetrics.families(input))
        #expect(text.contains("# TYPE sluice_cluster_link_packets_total counter"))
        #expect(text.contains("sluice_cluster_link_packets_total{role=\"origin\"} 1234"))
        #expect(text.contains("sluice_cluster_link_stream_packets{edge=\"node2\",stream=\"cam\"} 1000"))
    }

    @Test func noLinksCountNothing() {
        let text = PrometheusText.render(AdminLinkMetrics.families(AdminLinkMetrics.Input()))
        #expect(text.contains("sluice_cluster_link_packets_total{role=\"origin\"} 0"))
        #expect(!text.contains("sluice_cluster_link_stream_packets{"))
    }
}
